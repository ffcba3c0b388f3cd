import { it } from 'vitest';
import { developer, useMailbox } from '../accounts/support.js';
import type { TestApp } from '../support/app.js';
import { useTestApp } from '../support/lifecycle.js';
import { listeningApp, runWorkedExample } from './support.js';

/** examples/agent.ts as a reader runs it from this checkout, against the real service, answered through its link. */

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
  await runWorkedExample(t, await credential(t), ['--import', 'tsx', 'examples/agent.ts']);
});
