import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect, it } from 'vitest';
import { developer, useMailbox } from '../accounts/support.js';
import type { TestApp } from '../support/app.js';
import { useTestApp } from '../support/lifecycle.js';
import { answerThroughLink, listeningApp } from './support.js';

/** examples/agent.ts as a reader runs it, against the real service, answered through its link. */

const mailbox = useMailbox();
const { t } = useTestApp(async () => {
  const options = await listeningApp();
  return { ...options, config: { ...options.config, smtpUrl: mailbox.url } };
});

const owner = async (app: TestApp) => ({ key: app.ctx.config.ownerKey!, workspaceId: 'wks_operator' });
const developerKey = (app: TestApp) => developer(app, mailbox, 'example@example.com');

it.each([
  ['the owner key', owner],
  ['a developer key', developerKey],
])('with %s: prints the link, waits for the answer, verifies its receipt and prints the decision', async (_name, credential) => {
  const { key, workspaceId } = await credential(t);
  const agent = spawn(process.execPath, ['--import', 'tsx', 'examples/agent.ts'], {
    env: { ...process.env, SVC_URL: t.ctx.config.publicOrigin, SVC_API_KEY: key },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const link = new Promise<string>((resolve) => {
    agent.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /https?:\/\/\S+\/s\/\S+/.exec(output)?.[0];
      if (url) resolve(url);
    });
  });
  agent.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(agent, 'exit');

  expect((await answerThroughLink(await link, 'approve', { amount: '30', note: 'Sorry about the parcel.' })).status).toBe(200);
  const [code] = await exited;
  expect(output).toContain('Receipt verified: "Approve refund: Approve the refund for order 1042 (revision 1)"');
  expect(output).toContain(`for workspace ${workspaceId}.`);
  expect(output).toContain('Decision: refund 30.00 EUR (note: Sorry about the parcel.).');
  expect(code).toBe(0);
});
