import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { exportLog } from '../../eventstore/index.js';
import { Checkpointer } from '../../src/audit/checkpointer.js';
import { AUDIT_COMMANDS } from '../../src/audit/cli.js';
import { logOrigin, signCheckpoint } from '../../src/audit/logNote.js';
import { growTree } from '../../src/audit/tree.js';
import { ClientError, verifyInclusion } from '../../src/client/index.js';
import { fromBase64 } from '../../src/client/note.js';
import { ManualClock } from '../../src/clock.js';
import { parseReceiptKeys } from '../../src/receiptKeys.js';
import { bearer, developer, useMailbox } from '../accounts/support.js';
import { expectError } from '../support/envelope.js';
import { untilHorizonPasses } from '../support/horizon.js';
import { useTestApp } from '../support/lifecycle.js';
import { interactive, owner } from '../support/sessions.js';
import { answerOn } from './support.js';

/**
 * Proof of one decision, live: Sessions answered through the human link, a checkpoint signed by
 * the checkpointer, the proof of one response fetched and verified offline by the CLI and by the
 * client; then one byte of the stored event changed as an intruder with SQL would, and every
 * verification fails. Consistency proofs between two checkpoints, and a forked checkpoint.
 */

const mailbox = useMailbox();
const clock = new ManualClock(new Date());
const { db, t } = useTestApp(() => ({ clock, config: { smtpUrl: mailbox.url } }));
const INTERVAL_MS = 300_000;

let dir: string;
let key: string;
let verifierKey: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-proof-'));
  ({ key } = await developer(t, mailbox, 'proof@example.com'));
  const keys = await t.app.inject({ url: '/.well-known/svc-log-verifier-keys.txt' });
  expect(keys.statusCode, keys.body).toBe(200);
  expect(keys.headers['content-type']).toBe('text/plain; charset=utf-8');
  verifierKey = keys.body.split('\n')[0]!;
  expect(verifierKey.startsWith(`${logOrigin(t.ctx.config.publicOrigin)}+`)).toBe(true);
});

afterEach(() => vi.restoreAllMocks());

/** A Session of the developer's workspace, answered; its accepted response. */
async function answered(): Promise<{ sessionId: string; response: { event_id: string } }> {
  const created = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: bearer(key), payload: { interaction: interactive() } });
  expect(created.statusCode, created.body).toBe(201);
  const { id, human_url } = created.json<{ id: string; human_url: string }>();
  await answerOn(t, human_url.split('/s/')[1]!, 1);
  const session = await t.app.inject({ url: `/v1/sessions/${id}`, headers: bearer(key) });
  return { sessionId: id, response: session.json<{ responses: Array<{ event_id: string }> }>().responses[0]! };
}

async function checkpointNow(): Promise<string> {
  clock.advance(INTERVAL_MS);
  await untilHorizonPasses(db.pool);
  await new Checkpointer(t.ctx).tick();
  const res = await t.app.inject({ url: '/v1/log/checkpoint', headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
}

async function file(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

async function exportFile(name: string): Promise<string> {
  const lines: string[] = [];
  await exportLog(t.ctx.store, {}, async (events) => void lines.push(...events.map((e) => `${JSON.stringify(e)}\n`)));
  return file(name, lines.join(''));
}

/** The CLI's exit code and what it printed. */
async function cli(args: string[]): Promise<{ code: number; out: string }> {
  const printed: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
  const audit = AUDIT_COMMANDS.find((command) => command.name === 'audit')!;
  const code = await audit.run(args, () => Promise.reject(new Error('the offline audit opens no database')));
  vi.restoreAllMocks();
  return { code, out: printed.join('\n') };
}

const proofOf = (sessionId: string, eventId: string, credential = bearer(key)) => t.app.inject({ url: `/v1/sessions/${sessionId}/responses/${eventId}/proof`, headers: credential });

async function clientRefusal(call: Promise<unknown>): Promise<string | null> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ClientError);
  expect((error as ClientError).code).toBe('PROOF_INVALID');
  return (error as ClientError).reason;
}

describe('proof of one decision', () => {
  let first: { sessionId: string; response: { event_id: string } };
  let proof: string;
  let note: string;

  it('a response is not provable before a checkpoint covers it, then its proof verifies with the client and the CLI', async () => {
    first = await answered();
    await answered();
    const early = await proofOf(first.sessionId, first.response.event_id);
    expectError(early, 404, 'NOT_FOUND');

    note = await checkpointNow();
    const [origin, size] = note.split('\n');
    expect(origin).toBe(logOrigin(t.ctx.config.publicOrigin));
    const res = await proofOf(first.sessionId, first.response.event_id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    proof = res.body;
    expect(proof.startsWith('c2sp.org/tlog-proof@v1\nextra ')).toBe(true);
    expect(proof.endsWith(`\n\n${note}`)).toBe(true);

    const included = await verifyInclusion(first.response, proof, verifierKey);
    expect(included).toMatchObject({ origin, treeSize: Number(size), eventId: first.response.event_id, streamId: first.sessionId });

    const exported = await exportFile('log.jsonl');
    const proofFile = await file('first.tlog-proof', proof);
    const verified = await cli(['verify-proof', proofFile, '--export', exported, '--event', first.response.event_id, '--key', verifierKey]);
    expect(verified, verified.out).toEqual({ code: 0, out: expect.stringMatching(/^verified: /) });
  });

  it('the proof reveals no other event: its only bytes beyond hashes are the asked event\'s link', async () => {
    const extra = /^extra (.+)$/m.exec(proof)![1]!;
    const leaf = JSON.parse(new TextDecoder().decode(fromBase64(extra, 'extra'))) as unknown[];
    expect(leaf[1]).toBe(first.response.event_id);
    expect(leaf[2]).toBe(first.sessionId);
    // Another workspace (the owner's) cannot ask for it.
    expectError(await proofOf(first.sessionId, first.response.event_id, owner(t)), 404, 'SESSION_NOT_FOUND');
    // An event of the Session that is no decision is refused.
    const created = await db.pool.query<{ event_id: string }>('SELECT event_id FROM events WHERE stream_id = $1 AND stream_version = 1', [first.sessionId]);
    expectError(await proofOf(first.sessionId, created.rows[0]!.event_id), 404, 'NOT_FOUND');
  });

  it('fails with a reason on a changed byte of the proof, a wrong key, a wrong origin, another response', async () => {
    const lines = proof.split('\n');
    const hashLine = lines.findIndex((line) => /^[A-Za-z0-9+/]{43}=$/.test(line));
    const flipped = lines.map((line, i) => (i === hashLine ? `${line[0] === 'A' ? 'B' : 'A'}${line.slice(1)}` : line)).join('\n');
    expect(await clientRefusal(verifyInclusion(first.response, flipped, verifierKey))).toBe('root_mismatch');

    const otherKeys = parseReceiptKeys(
      JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', kid: 'other', d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' }] }),
    );
    const wrongKey = (await import('../../src/audit/logNote.js')).verifierKeys(logOrigin(t.ctx.config.publicOrigin), otherKeys).trim();
    expect(await clientRefusal(verifyInclusion(first.response, proof, wrongKey))).toBe('wrong_key');
    expect(await clientRefusal(verifyInclusion(first.response, proof, verifierKey, { origin: 'svc.example/log' }))).toBe('wrong_origin');
    expect(await clientRefusal(verifyInclusion({ event_id: 'evt_01JQ8Z6G6M1J4Y2N7D3R5T9VWX' }, proof, verifierKey))).toBe('leaf_mismatch');

    // A forked tree at the same size, signed by the log's own key: the proof does not lead to its root.
    const [origin, size] = note.split('\n');
    const forked = signCheckpoint(origin!, { size: Number(size), root: new Uint8Array(32).fill(7) }, t.ctx.receiptKeys!.active);
    const forkedProof = proof.replace(note, forked);
    expect(await clientRefusal(verifyInclusion(first.response, forkedProof, verifierKey))).toBe('root_mismatch');
    const exported = join(dir, 'log.jsonl');
    const refused = await cli(['verify-proof', await file('forked.tlog-proof', forkedProof), '--export', exported, '--event', first.response.event_id, '--key', verifierKey]);
    expect(refused).toEqual({ code: 1, out: expect.stringMatching(/^not verified \(root_mismatch\)/) });
    const wrongOrigin = await cli(['verify-proof', join(dir, 'first.tlog-proof'), '--export', exported, '--event', first.response.event_id, '--key', verifierKey, '--origin', 'svc.example/log']);
    expect(wrongOrigin).toEqual({ code: 1, out: expect.stringMatching(/^not verified \(wrong_origin\)/) });
    const otherKey = await cli(['verify-proof', join(dir, 'first.tlog-proof'), '--export', exported, '--event', first.response.event_id, '--key', wrongKey]);
    expect(otherKey).toEqual({ code: 1, out: expect.stringMatching(/^not verified \(wrong_key\)/) });
  });

  it('consistency between two checkpoints verifies; a forked newer one, or sizes out of order, do not', async () => {
    await answered();
    const newer = await checkpointNow();
    const from = Number(note.split('\n')[1]);
    const to = Number(newer.split('\n')[1]);
    expect(to).toBeGreaterThan(from);
    const res = await t.app.inject({ url: `/v1/log/consistency?from=${from}&to=${to}`, headers: bearer(key) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ from, to });
    const proofFile = await file('consistency.json', res.body);
    const older = await file('older.note', note);
    const verified = await cli(['verify-consistency', older, await file('newer.note', newer), '--proof', proofFile, '--key', verifierKey]);
    expect(verified, verified.out).toEqual({ code: 0, out: expect.stringMatching(/^verified: /) });

    const forked = signCheckpoint(newer.split('\n')[0]!, { size: to, root: new Uint8Array(32).fill(9) }, t.ctx.receiptKeys!.active);
    const refused = await cli(['verify-consistency', older, await file('forked.note', forked), '--proof', proofFile, '--key', verifierKey]);
    expect(refused).toEqual({ code: 1, out: expect.stringMatching(/^not verified \(root_mismatch\)/) });

    const same = await t.app.inject({ url: `/v1/log/consistency?from=${to}&to=${to}`, headers: bearer(key) });
    expect(same.json()).toEqual({ from: to, to, proof: [] });
    expectError(await t.app.inject({ url: `/v1/log/consistency?from=0&to=${to}`, headers: bearer(key) }), 400, 'INVALID_SCHEMA');
    expectError(await t.app.inject({ url: `/v1/log/consistency?from=${to}&to=${from}`, headers: bearer(key) }), 400, 'INVALID_SCHEMA');
    expectError(await t.app.inject({ url: `/v1/log/consistency?from=1&to=${to + 1_000}`, headers: bearer(key) }), 404, 'NOT_FOUND');
    expectError(await t.app.inject({ url: `/v1/log/consistency?from=1&to=${to}` }), 401, 'UNAUTHORIZED');
  });

  it('one byte of the stored event changed by an intruder with SQL: the client and the CLI both refuse', async () => {
    const { rows } = await db.pool.query<{ data: string }>('SELECT data FROM events WHERE event_id = $1', [first.response.event_id]);
    const data = rows[0]!.data;
    // One character inside the sealed ciphertext, so the JSON stays JSON.
    const at = data.indexOf('"sealed":"v1.') + '"sealed":"v1.'.length + 30;
    expect(at).toBeGreaterThan(20);
    const tampered = `${data.slice(0, at)}${data[at] === 'A' ? 'B' : 'A'}${data.slice(at + 1)}`;
    const intruder = await db.pool.connect();
    try {
      // The log refuses changes; a superuser can switch that off, as an intruder with SQL would.
      await intruder.query('ALTER TABLE events DISABLE TRIGGER events_no_update_delete');
      await intruder.query('UPDATE events SET data = $2 WHERE event_id = $1', [first.response.event_id, tampered]);
      await intruder.query('ALTER TABLE events ENABLE TRIGGER events_no_update_delete');
    } finally {
      intruder.release();
    }

    const res = await proofOf(first.sessionId, first.response.event_id);
    expect(res.statusCode, res.body).toBe(200);
    expect(await clientRefusal(verifyInclusion(first.response, res.body, verifierKey))).toBe('root_mismatch');

    const exported = await exportFile('tampered.jsonl');
    expect(await readFile(exported, 'utf8')).toContain(tampered.slice(at - 5, at + 5).replace(/"/g, '\\"'));
    const refused = await cli(['verify-proof', join(dir, 'first.tlog-proof'), '--export', exported, '--event', first.response.event_id, '--key', verifierKey]);
    expect(refused).toEqual({ code: 1, out: expect.stringMatching(/^not verified \(leaf_mismatch\)/) });
    // Without the leaf the service sent along, the changed event leads to another root.
    const bare = proof.replace(/^extra .+\n/m, '');
    const refusedBare = await cli(['verify-proof', await file('bare.tlog-proof', bare), '--export', exported, '--event', first.response.event_id, '--key', verifierKey]);
    expect(refusedBare).toEqual({ code: 1, out: expect.stringMatching(/^not verified \(root_mismatch\)/) });
  });

  it("proves a Session's resolution as well as its responses", async () => {
    const { sessionId } = await answered();
    const read = await t.app.inject({ url: `/v1/sessions/${sessionId}`, headers: bearer(key) });
    const done = await t.app.inject({ method: 'POST', url: `/v1/sessions/${sessionId}/complete`, headers: { ...bearer(key), 'if-match': read.headers.etag as string } });
    expect(done.statusCode, done.body).toBe(200);
    const completion = await db.pool.query<{ event_id: string }>(`SELECT event_id FROM events WHERE stream_id = $1 AND type = 'session.completed'`, [sessionId]);
    const eventId = completion.rows[0]!.event_id;
    expectError(await proofOf(sessionId, eventId), 404, 'NOT_FOUND');
    await checkpointNow();
    const res = await proofOf(sessionId, eventId);
    expect(res.statusCode, res.body).toBe(200);
    expect(await verifyInclusion({ event_id: eventId }, res.body, verifierKey)).toMatchObject({ eventId, streamId: sessionId });
  });

  it('the tree refuses changes, and never makes a leaf of an event changed before it was one', async () => {
    await answered();
    await untilHorizonPasses(db.pool);
    await growTree(t.ctx.store);
    await expect(db.pool.query('UPDATE log_tree_nodes SET hash = hash WHERE level = 0 AND node_index = 0')).rejects.toThrow(/append-only/);
    await expect(db.pool.query('DELETE FROM log_tree_leaves WHERE leaf_index = 0')).rejects.toThrow(/append-only/);
    const { response } = await answered();
    const intruder = await db.pool.connect();
    try {
      await intruder.query('ALTER TABLE events DISABLE TRIGGER events_no_update_delete');
      await intruder.query(`UPDATE events SET type = 'response.acceptee' WHERE event_id = $1`, [response.event_id]);
      await intruder.query('ALTER TABLE events ENABLE TRIGGER events_no_update_delete');
    } finally {
      intruder.release();
    }
    await untilHorizonPasses(db.pool);
    await expect(growTree(t.ctx.store)).rejects.toThrow(`event ${response.event_id}`);
  });
});
