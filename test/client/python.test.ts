import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DeliveryDispatcher } from '../../src/webhooks/index.js';
import { developer, useMailbox } from '../accounts/support.js';
import { answer } from '../support/https-receiver.js';
import { useTestApp } from '../support/lifecycle.js';
import { ensurePythonEnvironment, PYTHON_CLIENT, WHEELHOUSE } from '../support/python.js';
import { deliveriesTo, echoChallenge, useReceiver } from '../webhooks/support.js';
import { answerThroughLink, clientOf, listeningApp, refundQuestion } from './support.js';

/**
 * The Python client's suite (clients/python/tests, pytest) against this service, listening on a
 * real port over its own database: sync and async clients alike, the wheel built and installed
 * into a fresh virtual environment running examples/python/agent.py, and webhooks this service
 * signed and delivered (written to a file the suite reads).
 */

const receiver = useReceiver();
const mailbox = useMailbox();
const { t } = useTestApp(async () => {
  const listening = await listeningApp();
  return { ...listening, config: { ...listening.config, webhookTestEgress: 'loopback', smtpUrl: mailbox.url } };
});

let python: string;
let dir: string;
beforeAll(async () => {
  python = ensurePythonEnvironment();
  dir = await mkdtemp(join(tmpdir(), 'svc-python-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * Webhooks as the receiver got them: the verification challenge (signed by the first secret
 * alone), then, after a rotation, an accepted answer signed by both secrets.
 */
async function signedWebhooks(): Promise<string> {
  const client = clientOf(t);
  const registered = await client.registerWebhook(receiver.url);
  receiver.respond(echoChallenge);
  expect((await client.verifyWebhookEndpoint()).endpoint.status).toBe('verified');
  receiver.respond(answer(200));
  const [challenge] = receiver.requests;
  const rotation = await client.rotateWebhookSecret();
  const created = await client.createSession(refundQuestion());
  await answerThroughLink(created.human_url, 'approve', { amount: '12.5', reason: 'damaged' });
  await new DeliveryDispatcher(t.ctx).drain();
  const delivery = deliveriesTo(receiver).at(-1)!;
  const file = join(dir, 'webhooks.json');
  await writeFile(file, JSON.stringify({ previous: registered.signing_secret!.secret, newest: rotation.signing_secret.secret, challenge, delivery }));
  return file;
}

it('passes the Python client suite against the live service', async () => {
  const webhooks = await signedWebhooks();
  const { key: developerKey, workspaceId } = await developer(t, mailbox, 'python@example.com');
  const pytest = spawn(python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests'], {
    cwd: PYTHON_CLIENT,
    env: {
      ...process.env,
      PYTHONPATH: join(PYTHON_CLIENT, 'src'),
      PYTHONDONTWRITEBYTECODE: '1',
      SVC_URL: t.ctx.config.publicOrigin,
      SVC_API_KEY: t.ctx.config.ownerKey!,
      SVC_DEVELOPER_KEY: developerKey,
      SVC_DEVELOPER_WORKSPACE: workspaceId,
      SVC_WEBHOOKS: webhooks,
      SVC_PYTHON_WHEELHOUSE: WHEELHOUSE,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  pytest.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  pytest.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = await once(pytest, 'exit');
  expect(code, output).toBe(0);
  // Every test ran: none skipped, none left out.
  expect(output).toMatch(/\b\d+ passed\b/);
  expect(output).not.toMatch(/skipped|deselected|xfail/);
}, 180_000);
