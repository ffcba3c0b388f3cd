import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { untilHorizonPasses } from '../support/horizon.js';
import { useTestApp } from '../support/lifecycle.js';
import { serviceEnv } from '../support/processes.js';
import { answerThrough, createDecided } from '../decisions/support.js';
import { createSession } from '../support/sessions.js';
import { answerOn, lineOf, readExport, writeExport } from './support.js';

/**
 * The offline audit of a decision by several people: the answers' receipts and the resolution
 * receipt verify with the key set, and the resolution's binding of each answer's receipt by its
 * hash is checked against the receipts the export holds.
 */

const { db, t } = useTestApp();

let dir: string;
let decided: string;
const file = (name: string) => join(dir, name);
const audit = (exported: string): Promise<CliResult> => runCli(['audit', exported, '--keys', file('keys.json'), '--issuer', t.ctx.config.publicOrigin], {});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-audit-decision-'));
  const s = await createDecided(t);
  decided = s.id;
  for (const responder of s.responders.slice(0, 2)) expect((await answerThrough(t, responder.token, 'approve')).statusCode).toBe(200);
  const other = await createSession(t);
  await answerOn(t, other.token, 1);
  await writeFile(file('keys.json'), (await t.app.inject({ url: '/.well-known/svc-receipt-keys.json' })).body);
  await untilHorizonPasses(db.pool);
  const exported = await runCli(['export', '--decrypt'], serviceEnv(t.ctx.config, db.url, 0), { stdoutFile: file('opened.jsonl') });
  expect(exported.code, exported.stderr).toBe(0);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('verifies both answers, the other Session’s answer and the resolution receipt', async () => {
  const result = await audit(file('opened.jsonl'));
  expect(result.code, result.stdout + result.stderr).toBe(0);
  expect(result.stdout.trim().split('\n').at(-1)).toMatch(/: no problem; .*4 receipts verified/);
});

it('finds a bound receipt swapped for another valid one', async () => {
  const lines = await readExport(file('opened.jsonl'));
  const answers = lines.filter((l) => l.stream_id === decided && l.type === 'response.accepted');
  const [first, second] = answers.map((l) => (l.opened as { sealed: { receipt: string } }).sealed);
  // The second answer's receipt in the place of the first: both still verify on their own signature.
  first!.receipt = second!.receipt;
  await writeExport(file('swapped.jsonl'), lines);
  const result = await audit(file('swapped.jsonl'));
  expect(result.code).toBe(1);
  const resolution = lines.find((l) => l.stream_id === decided && l.type === 'decision.resolved')!;
  expect(result.stdout).toContain(`${decided} v${resolution.stream_version}: resolution receipt binds ${lineOf(lines, decided, answers[0]!.stream_version).event_id as string} by a hash that is not its receipt's`);
});
