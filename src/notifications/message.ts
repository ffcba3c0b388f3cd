import type { MailMessage } from '../mail.js';
import type { NoticeKind } from '../sessions/index.js';

/**
 * A responder's mail: who asks, what, until when, and the responder's own link, as plain text and
 * as HTML. Nothing in it tracks the reader (no images, no redirects, no per-open URL), and
 * `Auto-Submitted` tells mail servers and vacation responders it was sent by a machine.
 */

export interface NoticeContent {
  kind: NoticeKind;
  to: string;
  /** Who asks: the workspace, as the service names it. */
  asker: string;
  title: string;
  description: string | undefined;
  deadline: Date;
  link: string;
}

const SUBJECT_PREFIX: Record<NoticeKind, string> = {
  notify: 'Your decision is requested',
  reminder: 'Reminder: your decision is still requested',
  escalation: 'Your decision is requested (escalated)',
};

/** Whitespace collapsed, at most `max` characters: a title or a description's start on one line. */
export const line = (text: string, max: number): string => {
  const collapsed = text.replace(/\s+/g, ' ').trim();
  return collapsed.length <= max ? collapsed : `${collapsed.slice(0, max - 1)}…`;
};

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A deadline as a person reads it, in UTC: `2026-03-14 09:21 UTC`. */
export const deadlineText = (at: Date): string => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export function noticeMessage(content: NoticeContent): MailMessage {
  const title = line(content.title, 200);
  const description = content.description === undefined ? undefined : line(content.description, 500);
  const deadline = deadlineText(content.deadline);
  const lead = content.kind === 'reminder' ? `${content.asker} is still waiting for your decision:` : `${content.asker} asks for your decision:`;
  const text = [
    lead,
    '',
    title,
    ...(description ? ['', description] : []),
    '',
    'Answer through this link of your own (do not forward it: an answer through it is recorded as yours):',
    content.link,
    '',
    `It takes an answer until ${deadline}.`,
    '',
  ].join('\n');
  const html = [
    '<!doctype html><html><body>',
    `<p>${escapeHtml(lead)}</p>`,
    `<h1 style="font-size:1.2em">${escapeHtml(title)}</h1>`,
    ...(description ? [`<p>${escapeHtml(description)}</p>`] : []),
    `<p>Answer through this link of your own (do not forward it: an answer through it is recorded as yours):<br><a href="${escapeHtml(content.link)}">${escapeHtml(content.link)}</a></p>`,
    `<p>It takes an answer until ${escapeHtml(deadline)}.</p>`,
    '</body></html>',
  ].join('\n');
  return {
    to: content.to,
    subject: `${SUBJECT_PREFIX[content.kind]}: ${line(content.title, 120)}`,
    text,
    html,
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}
