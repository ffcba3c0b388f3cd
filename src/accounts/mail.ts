import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { Config } from '../config.js';

/**
 * Where sign-in mail goes. With SVC_SMTP_URL: through that SMTP server (nodemailer), and a link
 * counts as sent only once the server accepted the recipient. Without it in development: written
 * to $SVC_DATA_DIR/outbox/ and the link printed in the log, so a newcomer signs in after
 * `npm start`. Without it in production there is no mailer, and sign-in answers 503.
 */

export interface SignInMail {
  to: string;
  link: string;
  expiresAt: Date;
}

/** `sent`: the provider confirmed it; `unconfirmed`: it refused, failed or did not answer (outcome unknown). */
export type MailOutcome = 'sent' | 'unconfirmed';

export interface Mailer {
  send(mail: SignInMail): Promise<MailOutcome>;
  close(): void;
}

/** A provider that does not answer within these is not confirming; the request must not hang on it. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

function message(from: string, mail: SignInMail) {
  const until = mail.expiresAt.toISOString().slice(11, 16);
  return {
    from,
    to: mail.to,
    subject: 'Your sign-in link',
    text: [
      'Open this link to sign in to your developer account:',
      '',
      mail.link,
      '',
      `It works once, until ${until} UTC (15 minutes after it was sent). If you did not ask to sign in, ignore this mail.`,
      '',
    ].join('\n'),
  };
}

function smtpMailer(url: string, from: string, log: Logger): Mailer {
  const transport = nodemailer.createTransport({ url, ...SMTP_TIMEOUTS });
  return {
    async send(mail) {
      try {
        const info = await transport.sendMail(message(from, mail));
        return info.accepted.includes(mail.to) && info.rejected.length === 0 ? 'sent' : 'unconfirmed';
      } catch (error) {
        // The error names the server and its answer, never the link (it is only in the message body).
        log.warn({ err: { message: (error as Error).message } }, 'the mail provider did not confirm a sign-in mail');
        return 'unconfirmed';
      }
    },
    close: () => transport.close(),
  };
}

function outboxMailer(directory: string, from: string, log: Logger): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  let written = 0;
  return {
    async send(mail) {
      try {
        const { message: bytes } = await transport.sendMail(message(from, mail));
        await mkdir(directory, { recursive: true });
        const file = join(directory, `${new Date().toISOString().replace(/[:.]/g, '-')}-${written++}.eml`);
        await writeFile(file, bytes, { mode: 0o600 });
        log.info({ outbox: file }, `development sign-in link for ${mail.to}: ${mail.link}`);
        return 'sent';
      } catch (error) {
        log.warn({ err: { message: (error as Error).message } }, 'the development outbox could not be written');
        return 'unconfirmed';
      }
    },
    close: () => transport.close(),
  };
}

/** The mailer the configuration gives; undefined when email is not configured (production without SVC_SMTP_URL). */
export function mailerFor(config: Config, log: Logger): Mailer | undefined {
  const from = config.mailFrom ?? `no-reply@${new URL(config.publicOrigin).hostname}`;
  if (config.smtpUrl) return smtpMailer(config.smtpUrl, from, log);
  if (config.production) return undefined;
  return outboxMailer(join(config.dataDir, 'outbox'), from, log);
}
