import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HOUR } from '../../src/clock.js';
import { committedContract } from '../../src/openapi.js';
import { PurgeWorker } from '../../src/purge/index.js';
import { DeliveryDispatcher } from '../../src/webhooks/deliveries/dispatcher.js';
import { newSigningSecret } from '../../src/webhooks/endpoints/index.js';
import { DELIVERY_BUDGET_MS, MAX_ATTEMPTS, nextAttemptAt, TRANSPORT_TIMEOUT_MS } from '../../src/webhooks/retryPolicy.js';
import { contractChecker, pointer } from '../support/contract.js';
import type { ReceivedRequest } from '../support/https-receiver.js';
import { createSession, owner } from '../support/sessions.js';
import { answerThrough, createDecided } from '../decisions/support.js';
import { acceptAnswer, echoChallenge, useReceiver, useWebhookTest } from './support.js';

/**
 * docs/webhooks.md held to the service: its example bodies against the contract's `webhooks` and
 * real requests' shapes, its retry table against the retry policy, and its verification code,
 * copied out of the page from under each marker, run against requests the service signed and sent
 * to a real HTTPS receiver.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGE = join(ROOT, 'docs', 'webhooks.md');

const receiver = useReceiver();
const { t, clock } = useWebhookTest();

/** The code blocks of the page under `<!-- <kind>: <name> -->` markers, by name. */
async function marked(kind: string): Promise<Map<string, string>> {
  const page = await readFile(PAGE, 'utf8');
  const blocks = page.matchAll(new RegExp(`^<!-- ${kind}: (\\S+) -->\\n\`\`\`[a-z]+\\n([\\s\\S]*?)^\`\`\`$`, 'gm'));
  return new Map([...blocks].map(([, name, code]) => [name!, code!]));
}

/** The page's endpoint, asking for every event: PUT, then the challenge answered; the signing secret and the challenge as received. */
async function verifiedEndpoint(): Promise<{ secret: string; challenge: ReceivedRequest }> {
  const put = await t.app.inject({ method: 'PUT', url: '/v1/webhook', headers: owner(t), payload: { url: receiver.url, events: ['response.accepted', 'session.expired', 'decision.resolved'] } });
  expect(put.statusCode, put.body).toBe(201);
  receiver.respond(echoChallenge);
  const verified = await t.app.inject({ method: 'POST', url: '/v1/webhook/verify', headers: owner(t) });
  expect(verified.statusCode, verified.body).toBe(200);
  return { secret: put.json<{ signing_secret: { secret: string } }>().signing_secret.secret, challenge: receiver.requests.at(-1)! };
}

/** The deliveries the dispatcher sends now, as received. */
async function sent(): Promise<ReceivedRequest[]> {
  const before = receiver.requests.length;
  await new DeliveryDispatcher(t.ctx).drain();
  return receiver.requests.slice(before);
}

it('shows every request the contract declares with an example body valid against its schema and shaped as the real one', async () => {
  const { challenge } = await verifiedEndpoint();
  // A Session whose 720-hour link lapsed an hour ago, and one answered now.
  const now = clock.now();
  clock.set(new Date(now.getTime() - 721 * HOUR));
  await createSession(t);
  clock.set(now);
  await acceptAnswer(t, (await createSession(t)).id);
  // And a decision two of three people resolve.
  const decided = await createDecided(t);
  for (const responder of decided.responders.slice(0, 2)) expect((await answerThrough(t, responder.token, 'approve')).statusCode).toBe(200);
  await new PurgeWorker(t.ctx).drain();
  const real = new Map([challenge, ...(await sent())].map((request) => [JSON.parse(request.body).type as string, JSON.parse(request.body) as Record<string, unknown>]));

  const document = JSON.parse(await committedContract()) as { webhooks: Record<string, unknown> };
  const examples = await marked('webhook body');
  expect([...examples.keys()].sort()).toEqual(Object.keys(document.webhooks).sort());
  expect([...real.keys()].sort()).toEqual(Object.keys(document.webhooks).sort());
  const check = contractChecker(document);
  for (const [type, text] of examples) {
    const example = JSON.parse(text) as Record<string, unknown>;
    // Written as the service writes it: compact, keys in its order, each the type of the real one's.
    expect(`${JSON.stringify(example)}\n`, type).toBe(text);
    expect(check(pointer('webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema'), example), type).toEqual([]);
    const shape = (body: Record<string, unknown>) => Object.entries(body).map(([key, value]) => [key, value === null ? 'null' : typeof value]);
    expect(shape(example), type).toEqual(shape(real.get(type)!));
  }
});

/** A duration as the page writes it: `1 h 52 min 40 s`, `7.5 s`. */
function duration(ms: number): string {
  const hours = Math.floor(ms / HOUR);
  const minutes = Math.floor((ms % HOUR) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  return [hours && `${hours} h`, minutes && `${minutes} min`, seconds && `${seconds} s`].filter(Boolean).join(' ') || '0 s';
}

it('gives the retry policy as its table: each pause, its jitter, the time since the first attempt, and the budget', async () => {
  const page = await readFile(PAGE, 'utf8');
  const table = /^<!-- retry schedule -->\n((?:\|.*\n)+)/m.exec(page)?.[1]?.trimEnd().split('\n');
  expect(table).toBeDefined();
  // The pause after attempt n, drawn with `random` (0.5: none of the jitter).
  const pause = (attemptsMade: number, random: number) => {
    const finishedAt = new Date(0);
    return nextAttemptAt({ attemptsMade, finishedAt, deadlineAt: new Date(2 * DELIVERY_BUDGET_MS), retryAfter: undefined, random })!.getTime();
  };
  const rows: string[] = [];
  let since = 0;
  for (let attempt = 2; attempt <= MAX_ATTEMPTS; attempt++) {
    since += pause(attempt - 1, 0.5);
    rows.push(`| ${attempt} | ${duration(pause(attempt - 1, 0.5))} | ${duration(pause(attempt - 1, 0))} to ${duration(pause(attempt - 1, 1))} | ${duration(since)} |`);
  }
  expect(table!.slice(3)).toEqual(rows);
  expect(table![2]).toMatch(/^\| 1 \| .* \| 0 s \|$/);
  expect(since).toBeLessThan(DELIVERY_BUDGET_MS);
  expect(page).toContain(`at most ${MAX_ATTEMPTS} attempts within ${DELIVERY_BUDGET_MS / HOUR} hours`);
  expect(page).toContain(`within ${TRANSPORT_TIMEOUT_MS / 1000} seconds`);
});

let folder: string;
beforeAll(async () => {
  // Inside the checkout, so that the library's import resolves to its node_modules.
  await mkdir(join(ROOT, 'test-output'), { recursive: true });
  folder = await mkdtemp(join(ROOT, 'test-output', 'webhooks-doc-'));
});
afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** One call of a snippet's function: a request as received, and the secrets it is given. */
interface Case {
  headers: Record<string, string>;
  body: string;
  secrets: string[];
}

/** Each snippet's function called on each case, in its own language; what it returned for each (null: refused). */
const RUNNERS: Record<string, (file: string, cases: Case[]) => Promise<unknown[]>> = {
  mjs: async (file, cases) => {
    const harness = join(folder, `run-${file}`);
    await writeFile(
      harness,
      `import { verifyWebhook } from './${file}';\n` +
        `const cases = JSON.parse(process.argv[2]);\n` +
        `console.log(JSON.stringify(cases.map((c) => verifyWebhook(c.headers, Buffer.from(c.body, 'utf8'), c.secrets))));\n`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, [harness, JSON.stringify(cases)], { cwd: folder });
    return JSON.parse(stdout) as unknown[];
  },
  py: async (file, cases) => {
    const harness =
      'import json, sys\n' +
      `from ${file.replace(/\.py$/, '')} import verify_webhook\n` +
      'cases = json.loads(sys.argv[1])\n' +
      'print(json.dumps([verify_webhook(c["headers"], c["body"].encode(), c["secrets"]) for c in cases]))\n';
    const { stdout } = await promisify(execFile)('python3', ['-c', harness, JSON.stringify(cases)], { cwd: folder });
    return JSON.parse(stdout) as unknown[];
  },
};

/** The snippets a test runs: Python's standardwebhooks is not installed here, so its snippet is not among them. */
const RUN = ['verify-webhook.mjs', 'verify_webhook.py', 'verify-with-library.mjs'];

it('verifies with its own code, by hand and with the library, what the service signs: one secret, both during a rotation; refuses a changed body or another secret', async () => {
  const { secret, challenge } = await verifiedEndpoint();
  await acceptAnswer(t, (await createSession(t)).id);
  const [before] = await sent();
  const rotated = await t.app.inject({ method: 'POST', url: '/v1/webhook/secrets/rotate', headers: owner(t) });
  expect(rotated.statusCode, rotated.body).toBe(201);
  const newest = rotated.json<{ signing_secret: { secret: string } }>().signing_secret.secret;
  await acceptAnswer(t, (await createSession(t)).id);
  const [during] = await sent();
  expect(during!.headers['webhook-signature']!.split(' ')).toHaveLength(2);

  const of = (request: ReceivedRequest, secrets: string[], body = request.body): Case => ({ headers: request.headers, body, secrets });
  const cases = [
    of(challenge, [secret]),
    of(before!, [secret]),
    of(during!, [newest]),
    of(during!, [secret]),
    of(during!, [newSigningSecret().secret, newest]),
    of(before!, [secret], before!.body.replace('"approve"', '"reject"')),
    of(before!, [newSigningSecret().secret]),
    of({ ...before!, headers: { ...before!.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600) } }, [secret]),
  ];
  const expected = [JSON.parse(challenge.body), JSON.parse(before!.body), ...Array(3).fill(JSON.parse(during!.body)), null, null, null];
  expect(before!.body).toContain('"approve"');

  const snippets = await marked('snippet');
  for (const file of RUN) {
    expect(snippets.has(file), file).toBe(true);
    await writeFile(join(folder, file), snippets.get(file)!);
    expect(await RUNNERS[file.split('.').at(-1)!]!(file, cases), file).toEqual(expected);
  }
});
