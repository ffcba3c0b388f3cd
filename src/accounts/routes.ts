import { readFile } from 'node:fs/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { clientDigest } from '../clients.js';
import type { ServiceContext } from '../serviceContext.js';
import { refusalError } from '../http/refusal.js';
import { requestSignInLink } from './commands.js';
import type { AccountRefusal } from './decide.js';
import { mailerFor } from './mail.js';
import { accountPages } from './pages.js';
import { ACCOUNT_REFUSALS } from './refusals.js';
import { ACCOUNT_STYLESHEET_PATH } from './render/pages.js';
import { normalizeEmail } from './rules.js';
import { emailLinkRequestSchema, emailLinkResponseSchema, requestSignInLinkOperation } from './schemas.js';

/**
 * Developer accounts: POST /v1/auth/email-link (JSON, public) and the /app pages (HTML forms,
 * pages.ts). Sign-in proves a developer's identity only; it never touches a human link.
 */

const refused = (refusal: AccountRefusal) => refusalError(ACCOUNT_REFUSALS, refusal);

export async function accountRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  const mailer = mailerFor(ctx.config, ctx.log);
  app.addHook('onClose', async () => mailer?.close());
  app.addSchema(emailLinkResponseSchema);
  const stylesheet = await readFile(new URL('./assets/account.css', import.meta.url), 'utf8');

  app.post(
    '/v1/auth/email-link',
    {
      schema: {
        ...requestSignInLinkOperation,
        description:
          'Emails a sign-in link for the developer account pages (/app). The same 202 whether or not an account exists. ' +
          '503 SIGN_IN_UNAVAILABLE when email is not configured; 503 SERVICE_UNAVAILABLE when the mail provider did not confirm ' +
          '(the outcome is unknown, earlier links stay valid, and the attempt counts toward the limits).',
        security: [],
        body: emailLinkRequestSchema,
        response: { 202: { $ref: 'EmailLinkAccepted#' } },
      },
    },
    async (request: FastifyRequest<{ Body: { email: string } }>, reply) => {
      // Nothing of an account can be sealed or signed without it.
      ctx.streamKeys.deploymentKey.require();
      if (!mailer) throw refused({ refused: 'sign_in_unavailable' });
      const email = normalizeEmail(request.body.email);
      if (!email) throw refused({ refused: 'email_invalid' });
      const outcome = await requestSignInLink(ctx, mailer, { email, client: clientDigest(ctx.streamKeys.deploymentKey, 'sign-in-client', request.ip), continueKey: false });
      if ('refused' in outcome) throw refused(outcome);
      return reply.code(202).send({ status: 'accepted' });
    },
  );

  app.get(ACCOUNT_STYLESHEET_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=3600').header('x-content-type-options', 'nosniff').type('text/css; charset=utf-8').send(stylesheet),
  );

  await app.register(async (pages) => accountPages(pages, ctx, mailer), { prefix: '/app' });
}
