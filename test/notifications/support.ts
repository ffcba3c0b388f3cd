import { expect } from 'vitest';
import { Notifier } from '../../src/notifications/index.js';
import type { TestApp } from '../support/app.js';
import { interactive, owner } from '../support/sessions.js';
import type { Mailbox, ReceivedMail } from '../accounts/support.js';

/** Calls shared by the notification tests: a create with `notify`, the mail a responder got, and its own link. */

export async function createNotifying(t: TestApp, notify: object, interaction: object = interactive()) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t), payload: { interaction, notify } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string; human_url: string }>();
}

export const notifierOf = (t: TestApp): Notifier => new Notifier(t.ctx);

/** A responder's own link in a mail: its path and token. */
export function linkIn(mail: ReceivedMail): { path: string; token: string } {
  const match = /\/s\/([A-Za-z0-9_-]{43})/.exec(mail.text);
  if (!match) throw new Error(`no link in the mail to ${mail.to.join(', ')}`);
  return { path: match[0], token: match[1]! };
}

export const mailTo = (mailbox: Mailbox, address: string): ReceivedMail[] => mailbox.messages.filter((m) => m.to.includes(address));

export async function sessionOf(t: TestApp, id: string) {
  const res = await t.app.inject({ method: 'GET', url: `/v1/sessions/${id}`, headers: owner(t) });
  expect(res.statusCode).toBe(200);
  return res.json<{
    responses: Array<{ actor: { assurance: string; responder_id?: string }; receipt: string }>;
    responders?: Array<{ id: string; channel: string; address: string | null; state: string; notified_at: string | null; reminded_at: string | null }>;
  }>();
}

export async function eventsOf(t: TestApp, id: string) {
  const res = await t.app.inject({ method: 'GET', url: `/v1/sessions/${id}/events`, headers: owner(t) });
  expect(res.statusCode).toBe(200);
  return res.json<{ events: Array<{ type: string; responder_id?: string; kind?: string; reason?: string }> }>().events;
}

/** The claims of a compact JWS (the receipt), unverified: what a test compares. */
export const claimsOf = (jws: string): Record<string, unknown> => JSON.parse(Buffer.from(jws.split('.')[1]!, 'base64url').toString('utf8'));
