import { expect, it } from 'vitest';
import type { Routes } from '../../src/http/app.js';
import { loggablePath } from '../../src/http/logging.js';
import { useHarness } from './harness.js';

const token = 'humanLinkToken_0123456789abcdefghijklmnopqrstu';
const signInToken = 'signInToken_0123456789abcdefghijklmnopqrstuvw';
const developerKey = 'svc_sk_developerKey0123456789abcdefghijklmn';

/** A careless handler: logs the whole request and the configuration, then fails. */
const careless: Routes = (app, ctx) => {
  app.get('/probe/careless', async (request) => {
    request.log.info({ headers: request.headers }, 'careless headers');
    request.log.info({ req: request }, 'careless request');
    ctx.log.info({ config: ctx.config }, 'careless config');
    throw new Error('failed after logging');
  });
};

const { t, logLines } = useHarness([careless], {
  smtpUrl: 'smtp://mailer:smtp-password-secret@127.0.0.1:2525',
  databaseUrl: 'postgres://svc:database-password-secret@127.0.0.1:5432/svc',
});

it('never writes a credential, a capability token or a configured secret to the log', async () => {
  const config = t.ctx.config;
  const bearer = { authorization: `Bearer ${config.ownerKey}` };
  await t.app.inject({ url: '/v1/sessions/ses_00000000000000000000000000', headers: bearer });
  await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: { authorization: `Bearer ${developerKey}`, 'content-type': 'application/json' }, payload: '{}' });
  await t.app.inject({ url: `/s/${token}` });
  await t.app.inject({ url: `/s/${token}?x=1` });
  await t.app.inject({ method: 'POST', url: `/s/${token}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'a=1' });
  await t.app.inject({ url: `/app/confirm/${signInToken}` });
  await t.app.inject({ url: '/probe/careless', headers: { ...bearer, cookie: `svc_account=${signInToken}` } });

  const log = logLines.join('');
  // The requests were logged (so the checks below have something to look at).
  expect(log).toContain('/s/[redacted]');
  expect(log).toContain('/app/confirm/[redacted]');
  expect(log).toContain('careless config');
  expect(log).toContain('failed after logging');

  const receiptKey = JSON.parse(config.receiptKeys!).keys[0].d as string;
  const secrets = [config.ownerKey!, developerKey, token, signInToken, config.dataKeys!.split(':')[1]!, receiptKey, 'smtp-password-secret', 'database-password-secret'];
  for (const secret of secrets) {
    expect(log).not.toContain(secret);
  }
});

it('logs paths without capability tokens or query strings', () => {
  expect(loggablePath(`/s/${token}`)).toBe('/s/[redacted]');
  expect(loggablePath(`/s/${token}/receipt?download=1`)).toBe('/s/[redacted]/receipt');
  expect(loggablePath(`/app/confirm/${signInToken}`)).toBe('/app/confirm/[redacted]');
  expect(loggablePath('/v1/sessions/ses_1?token=abc')).toBe('/v1/sessions/ses_1');
});
