import { describe, expect, it } from 'vitest';
import type { Routes } from '../../src/http/app.js';
import { createLogger, loggablePath } from '../../src/http/logging.js';
import { useTestApp } from '../support/lifecycle.js';
import { exchange, portOf } from '../support/rawHttp.js';
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
  // A path no route matched is read as a router would: decoded, without scheme and host, one slash.
  expect(loggablePath(`http://host//%73//${token}/`)).toBe('/s/[redacted]/');
  expect(loggablePath('/%E0%A4%A')).toBe('[malformed]');
});

describe('a capability token, however its request is spelled', () => {
  // A well-formed link token (32 bytes, base64url) and a sign-in token: the routes are reached
  // whether or not they open anything, and the log must not hold them either way.
  const link = 'Zq3LinkTokenReachingTheHumanRoute_0123456-_';
  const signIn = 'Zq3SignInTokenReachingTheConfirmRoute_01234';
  const lines: string[] = [];
  const served = useTestApp({ listen: true, log: createLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(line) } }) });

  /** One raw request to the service; the head of what it answered. */
  async function send(method: string, target: string, body = ''): Promise<string> {
    const head = `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n`;
    const form = body === '' ? '\r\n' : `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const { received } = await exchange(portOf(served.t.app), [head + form]);
    return received.split('\r\n\r\n')[0]!.toLowerCase();
  }

  // Each reaches the human link's route (its answer is the link's HTML page, not the envelope).
  const reaching: Array<[string, string]> = [
    ['GET', `/s/${link}`],
    ['GET', `/s/%${link.charCodeAt(0).toString(16)}${link.slice(1)}`],
    ['GET', `/s/${link}?x=1`],
    ['HEAD', `/s/${link}`],
    ['POST', `/s/${link}`],
  ];
  // Others no route takes (the router matches the path as sent) or that are another route: the token stays out of the log.
  const elsewhere: Array<[string, string]> = [
    ['GET', `/%73/${link}`],
    ['HEAD', `/%73/${link}`],
    ['GET', `http://127.0.0.1/s/${link}`],
    ['GET', `http://127.0.0.1/s/${link}?x=1`],
    ['POST', `/%73/${link}`],
    ['GET', `http://127.0.0.1/%73/%${link.charCodeAt(0).toString(16)}${link.slice(1)}?x=1`],
    ['GET', `/s/${link}/`],
    ['GET', `//s/${link}`],
    ['GET', `/s//${link}`],
    ['GET', `/S/${link}`],
    ['GET', `/s/${link}/receipt?download=1`],
    ['GET', `/app/confirm/${signIn}`],
    ['GET', `/app/%63onfirm/${signIn}`],
    ['GET', `http://127.0.0.1/app/confirm/${signIn}?continue=key`],
  ];

  it('reaches the human route in every spelling and is logged by that route, redacted', async () => {
    for (const [method, target] of reaching) {
      const head = await send(method, target, method === 'POST' ? 'a=1' : '');
      expect(head, `${method} ${target}`).toContain('content-type: text/html');
      const logged = lines.filter((line) => line.includes('incoming request')).at(-1);
      expect(JSON.parse(logged!).req).toMatchObject({ method, path: '/s/[redacted]' });
    }
    for (const [method, target] of elsewhere) {
      await send(method, target);
      const logged = lines.filter((line) => line.includes('incoming request')).at(-1);
      expect(JSON.parse(logged!).req.path, `${method} ${target}`).toContain('[redacted]');
    }

    const log = lines.join('');
    expect(log).toContain('/app/confirm/[redacted]');
    // The tokens' tails: a spelling that percent-encodes a letter or two still holds them.
    for (const secret of [link, signIn]) expect(log).not.toContain(secret.slice(4));
  });
});
