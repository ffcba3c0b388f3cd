import { describe, expect, it } from 'vitest';
import {
  DeploymentKey,
  SealedFields,
  StreamKeys,
  aggregateStream,
  handleCommand,
  readStream,
  type Decider,
  type Position,
  type Step,
} from '../../eventstore/index.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { storeOf } from '../support/store.js';

/** The decider module over a real store: a counter whose notes are sealed. */

const db = useTestDatabase();
const keys = new StreamKeys(new DeploymentKey([{ id: 'initial', key: Buffer.alloc(32, 7) }]));

type Counted = { type: 'counted'; by: number; note: string };
type Counter = { total: number; notes: string[] };

const counter: Decider<Counter, Counted> = {
  initialState: { total: 0, notes: [] },
  evolve: (state, event) => ({ total: state.total + event.by, notes: [...state.notes, event.note] }),
  sealed: new SealedFields({ counted: ['note'] }),
};

/** Adds `by` unless the total would pass 10. */
const add = (by: number, note: string) => (state: Counter) =>
  state.total + by > 10 ? { refused: 'too_many' as const } : { events: [{ type: 'counted' as const, by, note }] };

describe('handleCommand', () => {
  it('folds, decides, appends at the version folded (sealed fields sealed together) and answers from the state after', async () => {
    const store = storeOf(db);
    const first = await store.withUnitOfWork((uow) => handleCommand(uow, counter, 'counter-a', add(4, 'four'), { keys }));
    const second = await store.withUnitOfWork((uow) => handleCommand(uow, counter, 'counter-a', add(5, 'five'), { keys }));
    expect(first).toMatchObject({ before: { total: 0 }, state: { total: 4, notes: ['four'] }, version: 1 });
    expect(second).toMatchObject({ before: { total: 4 }, state: { total: 9, notes: ['four', 'five'] }, version: 2 });

    const stored = await readStream(db.pool, 'counter-a');
    expect(stored.map((e) => Object.keys(e.data).sort())).toEqual([
      ['by', 'sealed'],
      ['by', 'sealed'],
    ]);
    expect(JSON.stringify(stored.map((e) => e.data))).not.toContain('four');
    expect(await aggregateStream(db.pool, counter, 'counter-a', { keys })).toEqual({ state: { total: 9, notes: ['four', 'five'] }, version: 2 });
  });

  it('returns a refusal as it is and appends nothing', async () => {
    const store = storeOf(db);
    await store.withUnitOfWork((uow) => handleCommand(uow, counter, 'counter-b', add(10, 'ten'), { keys }));
    const refused = await store.withUnitOfWork((uow) => handleCommand(uow, counter, 'counter-b', add(1, 'one'), { keys }));
    expect(refused).toEqual({ refused: 'too_many' });
    expect(await readStream(db.pool, 'counter-b')).toHaveLength(1);
  });

  it('decides again on the winner\'s state when it lost the race (EventStore.command)', async () => {
    const store = storeOf(db);
    const outcomes = await Promise.all(Array.from({ length: 4 }, (_, i) => store.command((uow) => handleCommand(uow, counter, 'counter-c', add(3, `n${i}`), { keys }))));
    expect(outcomes.filter((o) => 'refused' in o)).toEqual([{ refused: 'too_many' }]);
    expect((await aggregateStream(db.pool, counter, 'counter-c', { keys })).state.total).toBe(9);
  });
});

/** A log that numbers its lines by their events' positions, and keeps who asked sealed in the metadata. */
type Logged = { type: 'logged'; line: string; signature: string | null };
type Log = Array<{ line: string; signature: string | null; eventId: string; version: number; asker: unknown }>;

const log: Decider<Log, Logged> = {
  initialState: [],
  evolve: (state, event, position?: Position) => [
    ...state,
    { line: event.line, signature: event.signature, eventId: position!.eventId, version: position!.streamVersion, asker: position!.metadata.asker },
  ],
  sealed: new SealedFields({ logged: ['line'] }, { metadata: ['asker'] }),
};

const write = (line: string) => () => ({ events: [{ type: 'logged' as const, line, signature: null }] });

/** A step that signs each event with its id, as a receipt names the event it is for. */
const sign: Step<Log, Logged> = (proposal) => {
  proposal.events = proposal.events.map((p) => ({ ...p, event: { ...p.event, signature: `signed:${p.eventId}` } }));
};

describe('handleCommand steps', () => {
  it('runs the declared steps between decision and append, and answers from the fold with each event\'s position', async () => {
    const store = storeOf(db);
    const handled = await store.withUnitOfWork((uow) => handleCommand(uow, log, 'log-a', write('first'), { keys, metadata: { asker: 'ann' }, steps: [sign] }));
    if ('refused' in handled) throw new Error('refused');
    const [stored] = await readStream(db.pool, 'log-a');
    expect(handled.state).toEqual([{ line: 'first', signature: `signed:${stored!.eventId}`, eventId: stored!.eventId, version: 1, asker: 'ann' }]);
    // The metadata field the kind seals is sealed; the fold opens it again.
    expect(JSON.stringify(stored!.metadata)).not.toContain('ann');
    expect((await aggregateStream(db.pool, log, 'log-a', { keys })).state).toEqual(handled.state);
  });

  it('returns a step\'s refusal as it is and appends nothing', async () => {
    const store = storeOf(db);
    const quota: Step<Log, Logged, { refused: 'quota_exceeded' }> = ({ before }) => (before.length >= 1 ? { refused: 'quota_exceeded' } : undefined);
    const write1 = () => ({ events: [{ type: 'logged' as const, line: 'one', signature: null }] }) as { events: Logged[] } | { refused: 'quota_exceeded' };
    await store.withUnitOfWork((uow) => handleCommand(uow, log, 'log-b', write1, { keys, steps: [quota] }));
    const refused = await store.withUnitOfWork((uow) => handleCommand(uow, log, 'log-b', write1, { keys, steps: [quota] }));
    expect(refused).toEqual({ refused: 'quota_exceeded' });
    expect(await readStream(db.pool, 'log-b')).toHaveLength(1);
  });
});
