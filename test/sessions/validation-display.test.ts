import { describe, expect, it } from 'vitest';
import type { DisplayInteraction } from '../../src/sessions/interaction.js';
import { create, display, expectRefused } from './validationFixtures.js';

const D = 'interaction.source.data';
const dataOf = (data: unknown) => (create(display(data)) as DisplayInteraction).source.data;
const refused = (data: unknown, path: string) => expectRefused(() => create(display(data)), 'INVALID_SCHEMA', path);
const rows = (count: number) => Array.from({ length: count }, (_, i) => ({ n: i, name: `row ${i}` }));

describe('display data', () => {
  it('is an object with at least one property', () => {
    refused({}, D);
    refused([{ a: 1 }], D);
    refused('text', D);
    expectRefused(() => create(display(undefined, { source: { kind: 'data' } })), 'INVALID_SCHEMA', D);
    expectRefused(() => create(display(undefined, { source: { kind: 'data', data: { a: 1 }, rows: 1 } })), 'INVALID_SCHEMA', 'interaction.source.rows');
  });

  it('scalars of every kind, kept as sent', () => {
    const data = { text: 'x', empty: '', zero: 0, negative: -1.5, big: 1e300, yes: true, no: false, nothing: null };
    expect(dataOf(data)).toEqual(data);
    refused({ big: JSON.parse('1e400') }, `${D}.big`);
    refused({ bad: 'a\ud800' }, `${D}.bad`);
  });

  it('an object of at least one scalar (a record)', () => {
    expect(dataOf({ eta: { day: 'Monday', window: null } })).toEqual({ eta: { day: 'Monday', window: null } });
    refused({ eta: {} }, `${D}.eta`);
    refused({ eta: { day: { name: 'Monday' } } }, `${D}.eta.day`);
    refused({ eta: { days: ['Monday'] } }, `${D}.eta.days`);
  });

  it('an array of 1 to 100 objects (a table)', () => {
    expect(dataOf({ parcels: rows(100) })).toEqual({ parcels: rows(100) });
    expect(dataOf({ parcels: rows(1) })).toEqual({ parcels: rows(1) });
    refused({ parcels: rows(101) }, `${D}.parcels`);
    refused({ parcels: [] }, `${D}.parcels`);
  });

  it('each row an object of at least one scalar', () => {
    refused({ parcels: [{ a: 1 }, {}] }, `${D}.parcels[1]`);
    refused({ parcels: [{ a: 1 }, 2] }, `${D}.parcels[1]`);
    refused({ parcels: [{ a: 1 }, [1]] }, `${D}.parcels[1]`);
    refused({ parcels: [{ a: { b: 1 } }] }, `${D}.parcels[0].a`);
    refused({ parcels: [{ a: [1] }] }, `${D}.parcels[0].a`);
  });

  it('every row with the same key set (order may differ, and is kept)', () => {
    const table = [{ a: 1, b: 2 }, { b: 3, a: 4 }];
    expect(JSON.stringify(dataOf({ table }))).toBe(JSON.stringify({ table }));
    const extra = refused({ table: [{ a: 1 }, { a: 2 }, { a: 3, b: 4 }] }, `${D}.table[2]`);
    expect(extra.message).toContain('"b"');
    const missing = refused({ table: [{ a: 1, b: 2 }, { a: 2, b: 3 }, { a: 3 }] }, `${D}.table[2]`);
    expect(missing.message).toContain('"b"');
  });

  it('keys are any storable text, including the empty string and __proto__', () => {
    const data = JSON.parse('{"":1,"__proto__":{"x":1},"a b":[{"__proto__":2}]}');
    expect(JSON.stringify(dataOf(data))).toBe(JSON.stringify(data));
    refused({ 'a\u0000': 1 }, `The property name of ${D}["a\\u0000"]`);
  });
});
