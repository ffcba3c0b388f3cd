import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { mailTransportFor } from '../mail.js';

/**
 * Sign-in mail, through the service's mail transport (src/mail.ts: SMTP with SVC_SMTP_URL, the
 * development outbox without it, none in production without it, when sign-in answers 503).
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

function message(mail: SignInMail) {
  const until = mail.expiresAt.toISOString().slice(11, 16);
  return {
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

/** The mailer the configuration gives; undefined when email is not configured (production without SVC_SMTP_URL). */
export function mailerFor(config: Config, log: Logger): Mailer | undefined {
  const transport = mailTransportFor(config, log);
  if (!transport) return undefined;
  return {
    async send(mail) {
      const delivery = await transport.deliver(message(mail), `development sign-in link for ${mail.to}: ${mail.link}`);
      if (delivery.sent) return 'sent';
      // The reason names the server's answer, never the link (it is only in the message body).
      log.warn({ err: { message: delivery.reason } }, 'the mail provider did not confirm a sign-in mail');
      return 'unconfirmed';
    },
    close: () => transport.close(),
  };
}
