import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect } from 'vitest';
import { createClient, type ClientOptions, type HandoffClient } from '../../src/client/index.js';
import type { TestApp } from '../support/app.js';
import { PAGE_FORM_HEADERS } from '../human/form-post.js';
import type { Interaction } from '../../src/client/index.js';

/** Calls shared by the tests that drive the service through its client, over real sockets. */

export { listeningApp } from '../support/lifecycle.js';

export function clientOf(t: TestApp, options: Partial<ClientOptions> = {}): HandoffClient {
  return createClient({
    baseUrl: t.ctx.config.publicOrigin,
    apiKey: t.ctx.config.ownerKey!,
    // Fast enough for a test; the waits themselves are never asserted on.
    retry: { minDelayMs: 5, maxDelayMs: 20 },
    poll: { minDelayMs: 5, maxDelayMs: 40 },
    ...options,
  });
}

/** A form field as the page posts it: one string, or a string per ticked box. */
export type FormAnswer = Record<string, string | string[]>;

/**
 * A tool call's progress handler that answers through the link the first message naming one
 * carries; `answered` is that answer, once sent.
 */
export function answerOnProgress(actionId: string): { onprogress: (progress: { message?: string }) => void; answered: () => Promise<unknown> | undefined } {
  let answered: Promise<unknown> | undefined;
  return {
    onprogress: ({ message }) => {
      const url = /https?:\/\/\S+/.exec(message ?? '')?.[0];
      if (url && !answered) answered = answerThroughLink(url, actionId);
    },
    answered: () => answered,
  };
}

/**
 * The person's answer, the way the page sends it: open the link, take the form's hidden inputs,
 * post them with the field strings and the pressed button's action, with the Fetch Metadata
 * Chromium sends for a form the page itself posts. Resolves with the page the service answers.
 */
export async function answerThroughLink(humanUrl: string, actionId: string, fields: FormAnswer = {}): Promise<{ status: number; page: string }> {
  const opened = await fetch(humanUrl);
  const form = await opened.text();
  expect(opened.status, form).toBe(200);
  const hidden = (name: string) => new RegExp(`<input type="hidden" name="${name}" value="([^"]+)">`).exec(form)?.[1];
  const body = new URLSearchParams([
    ['client_event_id', hidden('client_event_id')!],
    ['surface_revision', hidden('surface_revision')!],
  ]);
  for (const [name, value] of Object.entries(fields)) for (const text of [value].flat()) body.append(`data.${name}`, text);
  body.append('action_id', actionId);
  const posted = await fetch(humanUrl, { method: 'POST', headers: PAGE_FORM_HEADERS, body: body.toString() });
  return { status: posted.status, page: await posted.text() };
}

/** An interactive Session asking for a refund decision: an amount, a reason to choose, a note. */
export function refundQuestion(title = 'Approve the refund for order 1042'): Interaction {
  return {
    mode: 'interactive' as const,
    title,
    source: {
      kind: 'svc_surface',
      components: [
        { type: 'record', label: 'Order', fields: { order: '1042', total: 49.9 } },
        { type: 'field', name: 'amount', label: 'Refund amount', schema: { type: 'number', minimum: 0, maximum: 49.9 }, required: true },
        { type: 'field', name: 'reason', label: 'Reason', schema: { type: 'string', enum: ['damaged', 'late', 'other'] }, required: true },
        { type: 'field', name: 'note', label: 'Note', schema: { type: 'string', maxLength: 200 } },
      ],
    },
    actions: [
      { id: 'approve', label: 'Approve refund', intent: 'approve' as const },
      { id: 'reject', label: 'Reject', intent: 'reject' as const },
    ],
  };
}

/**
 * The worked example (examples/agent.ts) as a reader runs it: `node ...args` in `cwd`, acting with
 * `key`. The person approves through the link it prints; it must verify the receipt for
 * `workspaceId`, print the decision and exit 0.
 */
export async function runWorkedExample(t: TestApp, credential: { key: string; workspaceId: string }, args: string[], cwd?: string): Promise<void> {
  const agent = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, SVC_URL: t.ctx.config.publicOrigin, SVC_API_KEY: credential.key },
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
  expect(output).toContain(`for workspace ${credential.workspaceId}.`);
  expect(output).toContain('Decision: refund 30.00 EUR (note: Sorry about the parcel.).');
  expect(code).toBe(0);
}
