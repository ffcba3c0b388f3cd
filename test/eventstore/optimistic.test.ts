import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { DeploymentKey, EventStore, StreamKeys, StreamVersionConflict, readStream, verify, type NewEvent, type UnitOfWork } from '../../eventstore/index.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { statementsOf } from '../support/statements.js';
import { appendTo, storeOf } from '../support/store.js';

/**
 * A command's unit of work is optimistic: it reads without a transaction and holds its append back,
 * so that a command whose only write is one append commits in one autocommitted statement. What
 * else it sends opens the transaction first; a lost race at commit runs the command again.
 */

const db = useTestDatabase();

const event = (type: string): NewEvent => ({ type, data: {} });

/** Runs `work` as a command, counting its runs. */
async function command(work: (uow: UnitOfWork, run: number) => Promise<unknown>): Promise<number> {
  let runs = 0;
  await storeOf(db).command((uow) => work(uow, ++runs));
  return runs;
}

describe('a command whose only write is one append', () => {
  it('sends its read and its append, and no BEGIN or COMMIT', async () => {
    await appendTo(db, 'lean', 0, [event('a')]);
    const sent = await statementsOf(db.pool, () =>
      command(async (uow) => {
        const stream = await uow.readStream('lean');
        await uow.append('lean', stream.length, [event('b')]);
      }),
    );
    expect(sent).toEqual(['svc_read_streams', 'svc_append']);
    expect((await readStream(db.pool, 'lean')).map((e) => e.type)).toEqual(['a', 'b']);
  });

  it('gives its events their positions and transaction once committed', async () => {
    let appended: Awaited<ReturnType<UnitOfWork['append']>> = [];
    await command(async (uow) => (appended = await uow.append('positions', 0, [event('a')])));
    const [stored] = await readStream(db.pool, 'positions');
    expect(appended[0]).toMatchObject({ globalPosition: stored!.globalPosition, transactionId: stored!.transactionId });
  });

  it('runs again on the stream as it now is when another writer appended first, and loses nothing', async () => {
    await appendTo(db, 'raced', 0, [event('opened')]);
    const runs = await command(async (uow, run) => {
      const stream = await uow.readStream('raced');
      // Between this command's read and its commit, another writer takes the next version.
      if (run === 1) await appendTo(db, 'raced', stream.length, [event('other')]);
      await uow.append('raced', stream.length, [event(`mine-${stream.length}`)]);
    });
    expect(runs).toBe(2);
    expect((await readStream(db.pool, 'raced')).map((e) => e.type)).toEqual(['opened', 'other', 'mine-2']);
  });

  it('writes nothing when its work fails after the append', async () => {
    await expect(
      command(async (uow) => {
        await uow.append('failed', 0, [event('a')]);
        throw new Error('after the append');
      }),
    ).rejects.toThrow('after the append');
    expect(await readStream(db.pool, 'failed')).toEqual([]);
  });
});

describe('a command that sends more', () => {
  it('opens the transaction before its own statement, with the held append written first, so the statement sees it', async () => {
    let seen = -1;
    const sent = await statementsOf(db.pool, () =>
      command(async (uow) => {
        await uow.append('seen', 0, [event('a')]);
        seen = (await uow.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE stream_id = 'seen'`)).rows[0]!.n;
      }),
    );
    expect(seen).toBe(1);
    expect(sent).toEqual(['BEGIN', 'svc_append', 'SELECT', 'COMMIT']);
  });

  it('writes two appends in one transaction, and neither when the second loses its race', async () => {
    await appendTo(db, 'second', 0, [event('a')]);
    await expect(
      storeOf(db).withUnitOfWork(async (uow) => {
        await uow.append('first', 0, [event('a')]);
        await uow.append('second', 0, [event('a')]);
      }),
    ).rejects.toMatchObject({ name: 'StreamVersionConflict', streamId: 'second' });
    expect(await readStream(db.pool, 'first')).toEqual([]);
  });
});

describe("a new stream's key", () => {
  const keys = new StreamKeys(new DeploymentKey([{ id: 'k1', key: randomBytes(32) }]));

  /** Starts a stream (as a command that starts one does) whose first event carries a value sealed with the stream's key. */
  async function start(uow: UnitOfWork, streamId: string, secret: string) {
    uow.expectEmpty(streamId);
    const sealed = await keys.seal(uow, streamId, secret);
    return uow.append(streamId, 0, [{ type: 'started', data: { sealed } }]);
  }

  /** The secret the stream's first event holds, opened with its stored key. */
  const secretOf = async (streamId: string) => (await keys.opener(db.pool, streamId))((await readStream(db.pool, streamId))[0]!.data.sealed as string);

  it('is written in the statement of its first append', async () => {
    const sent = await statementsOf(db.pool, () => command((uow) => start(uow, 'keyed', 'secret')));
    expect(sent).toEqual(['svc_append+stream_key']);
    expect(await secretOf('keyed')).toBe('secret');
  });

  it('of a stream another writer started first makes the append conflict, and the first key stays', async () => {
    const open = await storeOf(db).begin();
    await start(open.uow, 'contested', 'first');
    // The second writer's key row waits on the first's, then finds it taken: a lost race.
    const second = expect(storeOf(db).withUnitOfWork((uow) => start(uow, 'contested', 'second'))).rejects.toMatchObject({
      name: 'StreamVersionConflict',
      streamId: 'contested',
    });
    await open.commit();
    await second;
    expect(await secretOf('contested')).toBe('first');
  });
});

describe('an append that did not read its stream', () => {
  it('links to the event its process committed last without reading the link, and reads one another process wrote', async () => {
    const [ours, theirs] = [storeOf(db), storeOf(db)];
    await ours.withUnitOfWork((uow) => uow.append('remembered', 0, [event('a')]));
    const blind = (store: EventStore, version: number) => statementsOf(db.pool, () => store.withUnitOfWork((uow) => uow.append('remembered', version, [event('b')])));
    expect(await blind(ours, 1)).toEqual(['svc_append']);
    expect(await blind(theirs, 2)).toEqual(['svc_link_at', 'svc_append']);
    expect(await verify(db.pool, 'remembered')).toEqual([]);
  });

  it('forgets what it remembered of a stream once an append on it conflicts, and reads the link next time', async () => {
    const [ours, theirs] = [storeOf(db), storeOf(db)];
    await ours.withUnitOfWork((uow) => uow.append('restored', 0, [event('a')]));
    // The database restored beneath the process to before that event, and the stream begun again.
    const admin = await db.pool.connect();
    try {
      await admin.query(`SET session_replication_role = replica`);
      await admin.query(`DELETE FROM events WHERE stream_id = 'restored'`);
    } finally {
      await admin.query(`RESET session_replication_role`);
      admin.release();
    }
    await theirs.withUnitOfWork((uow) => uow.append('restored', 0, [event('again')]));
    const append = () => ours.withUnitOfWork((uow) => uow.append('restored', 1, [event('b')]));
    await expect(append()).rejects.toBeInstanceOf(StreamVersionConflict);
    await append();
    expect((await readStream(db.pool, 'restored')).map((e) => e.type)).toEqual(['again', 'b']);
    expect(await verify(db.pool, 'restored')).toEqual([]);
  });

  it('still loses its race to another writer of the stream, and nothing is written', async () => {
    const [ours, theirs] = [storeOf(db), storeOf(db)];
    await ours.withUnitOfWork((uow) => uow.append('overtaken', 0, [event('a')]));
    await theirs.withUnitOfWork((uow) => uow.append('overtaken', 1, [event('theirs')]));
    await expect(ours.withUnitOfWork((uow) => uow.append('overtaken', 1, [event('ours')]))).rejects.toBeInstanceOf(StreamVersionConflict);
    expect((await readStream(db.pool, 'overtaken')).map((e) => e.type)).toEqual(['a', 'theirs']);
  });
});
