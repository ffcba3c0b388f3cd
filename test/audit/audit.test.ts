import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompactSign, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { DeliveryDispatcher } from '../../src/webhooks/index.js';
import { runCli, type CliResult } from '../support/cli.js';
import { untilHorizonPasses } from '../support/horizon.js';
import { useTestApp } from '../support/lifecycle.js';
import { serviceEnv } from '../support/processes.js';
import { createSession, interactive, owner } from '../support/sessions.js';
import { registerVerified, useReceiver } from '../webhooks/support.js';
import { answerOn, lineOf, readExport, writeExport, type Line } from './support.js';

/**
 * The auditor's path end to end: Sessions created, revised, answered with receipts, completed,
 * one erased as purge erases; a checkpoint kept; the log exported with and without --decrypt by
 * the command line; then `audit` in a process with no database in its environment, on the export
 * as written and after each tamper.
 */

const receiver = useReceiver();
// The receiver checks webhook timestamps against the real clock.
const { db, t } = useTestApp(() => ({ clock: new ManualClock(new Date()), config: { webhookTestEgress: 'loopback' } }));

let dir: string;
const file = (name: string) => join(dir, name);
let revised: string;
let answered: string;
let erased: string;

/** `audit` as an auditor runs it: no DATABASE_URL, no service variable, nothing but the files. */
const audit = (exported: string, ...extra: string[]): Promise<CliResult> => runCli(['audit', exported, '--keys', file('keys.json'), ...extra], {});

const problems = (result: CliResult): string[] => result.stdout.trim().split('\n').slice(0, -1);
const summary = (result: CliResult): string => result.stdout.trim().split('\n').at(-1) ?? '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-audit-'));
  await registerVerified(t, receiver);

  const first = await createSession(t);
  revised = first.id;
  const patch = await t.app.inject({
    method: 'PATCH',
    url: `/v1/sessions/${revised}`,
    headers: owner(t, { 'if-match': '"1.0"' }),
    payload: { interaction: interactive({ title: 'Approve the revised refund' }) },
  });
  expect(patch.statusCode, patch.body).toBe(200);
  await answerOn(t, first.token, 2);
  const complete = await t.app.inject({ method: 'POST', url: `/v1/sessions/${revised}/complete`, headers: owner(t, { 'if-match': '"2.2"' }) });
  expect(complete.statusCode, complete.body).toBe(200);

  const second = await createSession(t);
  answered = second.id;
  await answerOn(t, second.token, 1, '7');

  const third = await createSession(t);
  erased = third.id;
  await answerOn(t, third.token, 1);
  await new DeliveryDispatcher(t.ctx).drain();
  // What purge does to a Session's content: its data key destroyed, the log left as it is.
  await t.ctx.store.withUnitOfWork((uow) => t.ctx.streamKeys.destroy(uow, erased));

  const keys = await t.app.inject({ url: '/.well-known/svc-receipt-keys.json' });
  await writeFile(file('keys.json'), keys.body);

  const env = serviceEnv(t.ctx.config, db.url, 0);
  // The checkpoint must cover every event written so far for the truncation tests.
  await untilHorizonPasses(db.pool);
  const checkpoint = await runCli(['checkpoint'], env);
  expect(checkpoint.code, checkpoint.stderr).toBe(0);
  await writeFile(file('checkpoint.json'), checkpoint.stdout);
  for (const [name, args] of [
    ['sealed.jsonl', []],
    ['opened.jsonl', ['--decrypt']],
    ['session.jsonl', ['--session', revised, '--decrypt']],
  ] as const) {
    const exported = await runCli(['export', ...args], env, { stdoutFile: file(name) });
    expect(exported.code, exported.stderr).toBe(0);
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('an export as written', () => {
  it('passes sealed: every chain and checkpoint holds, and it says how many receipts it could not open', async () => {
    const result = await audit(file('sealed.jsonl'));
    expect(result.stdout, result.stderr).toMatch(/: no problem; 1 checkpoints checked; 0 receipts verified \(issuer http:\/\/127\.0\.0\.1:8080\), 3 could not be opened/);
    expect(result.code).toBe(0);
  });

  it('passes opened, with the kept checkpoint: every receipt verified but the erased Session\'s', async () => {
    const result = await audit(file('opened.jsonl'), '--checkpoint', file('checkpoint.json'));
    expect(summary(result), result.stderr).toMatch(/: no problem; 1 checkpoints checked \(and the kept one\); 2 receipts verified \(issuer http:\/\/127\.0\.0\.1:8080\), 1 could not be opened/);
    expect(result.code).toBe(0);
  });

  it('reads the same events from CRLF line ends, blank lines and a last line with no line end', async () => {
    const lines = (await readFile(file('opened.jsonl'), 'utf8')).trimEnd().split('\n');
    await writeFile(file('reflowed.jsonl'), `\r\n${lines.join('\r\n\n')}`);
    const [before, after] = [await audit(file('opened.jsonl')), await audit(file('reflowed.jsonl'))];
    expect(after.code, after.stdout).toBe(0);
    expect(summary(after)).toBe(summary(before));
  });

  it('holds each link\'s stored values and, opened, the content, or the erased marker once the key is gone', async () => {
    const sealed = await readExport(file('sealed.jsonl'));
    const opened = await readExport(file('opened.jsonl'));
    expect(opened.map(({ opened: _, ...stored }) => stored)).toEqual(sealed);
    expect(Object.keys(sealed[0]!)).toEqual([
      'global_position', 'transaction_id', 'event_id', 'stream_id', 'stream_version', 'type', 'data', 'metadata', 'recorded_at', 'prev_hash', 'hash', 'link_format',
    ]);
    expect(lineOf(sealed, revised, 2).data).toMatch(/"sealed":"v1\./);
    expect(lineOf(opened, revised, 2).opened).toMatchObject({ sealed: { interaction: { title: 'Approve the revised refund' } } });
    expect(lineOf(opened, answered, 2).opened).toMatchObject({ sealed: { action_id: 'approve', data: { amount: 7 } } });
    const erasedLines = opened.filter((l) => l.stream_id === erased);
    expect(erasedLines.map((l) => l.opened)).toEqual([{ sealed: { erased: true } }, { sealed: { erased: true } }]);
    const delivery = opened.find((l) => l.type === 'delivery.queued' && JSON.parse(l.data).session_id === erased)!;
    // A delivery job holds no content of its own: its body is rendered from the Session.
    expect(delivery.opened).toBeUndefined();
  });

  it('exports one Session: its stream and its delivery streams, in log order, auditable alone', async () => {
    const lines = await readExport(file('session.jsonl'));
    const streams = [...new Set(lines.map((l) => l.stream_id))];
    expect(streams[0]).toBe(revised);
    expect(streams.slice(1)).toEqual([expect.stringMatching(/^delivery-obx_/)]);
    expect(lines.filter((l) => l.stream_id === revised).map((l) => l.type)).toEqual(['session.created', 'revision.published', 'response.accepted', 'session.completed']);
    const result = await audit(file('session.jsonl'), '--issuer', 'http://127.0.0.1:8080');
    expect(summary(result), result.stdout).toMatch(/: no problem; 0 checkpoints checked; 1 receipts verified/);
    expect(result.code).toBe(0);
  });
});

describe('each tamper, reported with the stream and version', () => {
  /** The export rewritten by `edit`, then audited; the result must name the tampered event. */
  async function tampered(source: string, edit: (lines: Line[]) => Line[] | Promise<Line[]>, ...extra: string[]): Promise<CliResult> {
    const name = file(`tampered-${Math.random().toString(36).slice(2)}.jsonl`);
    await writeExport(name, await edit(await readExport(file(source))));
    return audit(name, ...extra);
  }

  it('a changed value', async () => {
    const result = await tampered('sealed.jsonl', (lines) => {
      const line = lineOf(lines, revised, 2);
      line.data = line.data.replace('"revision":2', '"revision":3');
      return lines;
    });
    expect(result.code).toBe(1);
    expect(problems(result)).toEqual([`${revised} v2: hash does not match the content (changed after it was written)`]);
  });

  it('a removed event', async () => {
    const result = await tampered('sealed.jsonl', (lines) => lines.filter((l) => !(l.stream_id === revised && l.stream_version === 2)));
    expect(result.code).toBe(1);
    expect(problems(result)).toContain(`${revised} v3: version 2 is missing`);
    expect(problems(result)).toContain(`${revised} v3: prev_hash is not the hash of version 1`);
  });

  it('two events swapped', async () => {
    const result = await tampered('sealed.jsonl', (lines) => {
      const a = lines.indexOf(lineOf(lines, revised, 2));
      const b = lines.indexOf(lineOf(lines, revised, 3));
      [lines[a], lines[b]] = [lines[b]!, lines[a]!];
      return lines;
    });
    expect(result.code).toBe(1);
    expect(problems(result)).toContain(`${revised} v3: version 2 is missing`);
    expect(problems(result)).toContain(`${revised} v2: version 2 again after version 3`);
    expect(problems(result).some((p) => p.startsWith(`${revised} v3: out of log order`) || p.startsWith(`${revised} v2: out of log order`))).toBe(true);
  });

  it('a receipt from another Session pasted in', async () => {
    const result = await tampered('opened.jsonl', (lines) => {
      const theirs = (lineOf(lines, answered, 2).opened as { sealed: { receipt: string } }).sealed.receipt;
      (lineOf(lines, revised, 3).opened as { sealed: { receipt: string } }).sealed.receipt = theirs;
      return lines;
    });
    expect(result.code).toBe(1);
    const [problem, ...others] = problems(result);
    expect(others).toEqual([]);
    expect(problem).toMatch(new RegExp(`^${revised} v3: receipt does not match its event: .*session_id "${answered}" \\(the event's: "${revised}"\\)`));
    expect(problem).toContain('input_sha256');
  });

  it('a receipt re-signed with a key not in the set', async () => {
    const result = await tampered('opened.jsonl', async (lines) => {
      const sealed = (lineOf(lines, revised, 3).opened as { sealed: { receipt: string } }).sealed;
      const { kid } = decodeProtectedHeader(sealed.receipt);
      const claims = Buffer.from(sealed.receipt.split('.')[1]!, 'base64url');
      const stranger = generateKeyPairSync('ed25519').privateKey;
      sealed.receipt = await new CompactSign(claims).setProtectedHeader({ alg: 'EdDSA', typ: 'svc-receipt+jwt', kid: kid! }).sign(stranger);
      return lines;
    });
    expect(result.code).toBe(1);
    expect(problems(result)).toEqual([`${revised} v3: receipt signature does not verify with key test-1`]);
  });

  it("a stream's newest event removed: the checkpoint that covers it names it", async () => {
    const result = await tampered('sealed.jsonl', (lines) => lines.filter((l) => !(l.stream_id === answered && l.stream_version === 2)));
    expect(result.code).toBe(1);
    expect(problems(result)).toEqual([
      expect.stringMatching(new RegExp(`^${answered} v2: the checkpoint of .* recorded this version as the stream's newest; the export has version 1 there`)),
      expect.stringMatching(/^log-checkpoints v\d+: at its position the export holds (\d+) events in (\d+) streams; the checkpoint of .* counted \d+ in \d+$/),
      expect.stringMatching(/^log-checkpoints v\d+: the heads at its position do not hash to the checkpoint of .*'s signed heads_hash$/),
    ]);
  });

  it("a stream's newest event removed with the checkpoints since: the chains pass, the kept checkpoint catches it", async () => {
    const drop = (lines: Line[]) => lines.filter((l) => !(l.stream_id === answered && l.stream_version === 2) && l.stream_id !== 'log-checkpoints');
    const unanchored = await tampered('sealed.jsonl', drop);
    expect(unanchored.code, unanchored.stdout).toBe(0);
    const anchored = await tampered('sealed.jsonl', drop, '--checkpoint', file('checkpoint.json'));
    expect(anchored.code).toBe(1);
    expect(problems(anchored)).toEqual([
      expect.stringMatching(/^log-checkpoints v1: the kept checkpoint, the checkpoint of .* is not in the export: at its position the export holds \d+ events in \d+ streams where it counted \d+ in \d+; the heads there do not hash to its heads_hash$/),
    ]);
  });
});
