import { describe, expect, it } from 'vitest';
import { newUlid, pooledRandomBytes } from '../../eventstore/index.js';

describe('the random pool', () => {
  it('hands out bytes of their own: draws past several refills leave the earlier ones as they were, and never repeat', () => {
    const first = pooledRandomBytes(32);
    const kept = Buffer.from(first);
    const draws = Array.from({ length: 1000 }, () => pooledRandomBytes(32).toString('hex'));
    expect(first.equals(kept)).toBe(true);
    expect(new Set([kept.toString('hex'), ...draws]).size).toBe(1001);
  });

  it('refuses a draw larger than the pool', () => {
    expect(() => pooledRandomBytes(4097)).toThrow(RangeError);
  });

  it('makes ULIDs whose random part spans every character', () => {
    const ids = Array.from({ length: 2000 }, () => newUlid());
    expect(new Set(ids).size).toBe(2000);
    expect(new Set(ids.flatMap((id) => [...id.slice(10)])).size).toBe(32);
  });
});
