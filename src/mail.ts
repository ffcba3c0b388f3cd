import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { Config } from './config.js';

/**
 * Where the service's mail goes (sign-in links, responders' notifications). With SVC_SMTP_URL:
 * through that SMTP server (nodemailer), and a message counts as sent only once the server
 * accepted the recipient. Without it in development: written to $SVC_DATA_DIR/outbox/ and a line
 * printed in the log, so a newcomer sees it after `npm start`. Without it in production there is
 * no mail.
 */

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  headers?: Record<string, string>;
}

/**
 * What became of a message: sent (the server accepted the recipient), or not, and then whether
 * sending it again can change that (`permanent`: the server refused it for good, a 5xx).
 */
export type MailDelivery = { sent: true } | { sent: false; permanent: boolean; reason: string };

export interface MailTransport {
  /** `note` is what the development outbox logs beside the file (the link a newcomer follows). */
  deliver(message: MailMessage, note: string): Promise<MailDelivery>;
  close(): void;
}

/** A provider that does not answer within these is not confirming; nobody must hang on it. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

/** nodemailer's failure as a delivery: an SMTP 5xx answer is final, anything else may pass later. */
function failureOf(error: unknown): MailDelivery {
  const { responseCode, code } = error as { responseCode?: number; code?: string };
  if (responseCode !== undefined && responseCode >= 500) return { sent: false, permanent: true, reason: `smtp_${responseCode}` };
  return { sent: false, permanent: false, reason: responseCode !== undefined ? `smtp_${responseCode}` : `smtp_${(code ?? 'unavailable').toLowerCase()}` };
}

function smtpTransport(url: string, from: string): MailTransport {
  const transport = nodemailer.createTransport({ url, ...SMTP_TIMEOUTS });
  return {
    async deliver(message) {
      try {
        const info = await transport.sendMail({ from, ...message });
        if (info.accepted.includes(message.to) && info.rejected.length === 0) return { sent: true };
        return { sent: false, permanent: true, reason: 'recipient_refused' };
      } catch (error) {
        return failureOf(error);
      }
    },
    close: () => transport.close(),
  };
}

function outboxTransport(directory: string, from: string, log: Logger): MailTransport {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  let written = 0;
  return {
    async deliver(message, note) {
      try {
        const { message: bytes } = await transport.sendMail({ from, ...message });
        await mkdir(directory, { recursive: true });
        const file = join(directory, `${new Date().toISOString().replace(/[:.]/g, '-')}-${written++}.eml`);
        await writeFile(file, bytes, { mode: 0o600 });
        log.info({ outbox: file }, note);
        return { sent: true };
      } catch (error) {
        log.warn({ err: { message: (error as Error).message } }, 'the development outbox could not be written');
        return { sent: false, permanent: false, reason: 'outbox_unwritable' };
      }
    },
    close: () => transport.close(),
  };
}

/** The transport the configuration gives; undefined when mail is not configured (production without SVC_SMTP_URL). */
export function mailTransportFor(config: Config, log: Logger): MailTransport | undefined {
  const from = config.mailFrom ?? `no-reply@${new URL(config.publicOrigin).hostname}`;
  if (config.smtpUrl) return smtpTransport(config.smtpUrl, from);
  if (config.production) return undefined;
  return outboxTransport(join(config.dataDir, 'outbox'), from, log);
}
