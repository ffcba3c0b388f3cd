import { describe, expect, it } from 'vitest';
import { STRICT_TRANSPORT_SECURITY } from '../../src/http/headers.js';
import { withTestApp } from '../support/app.js';
import { useTestApp } from '../support/lifecycle.js';
import { createSession, owner } from '../support/sessions.js';

/** Security headers on every response; HTTPS pinned only when the public origin is https. */

const { db, t } = useTestApp({ config: { publicOrigin: 'https://handoff.example' } });

const JSON_URLS = ['/health/live', '/health/ready', '/version', '/openapi.json', '/.well-known/svc-receipt-keys.json', '/no/such/route'];

describe('every response', () => {
  it('carries nosniff and, with an https public origin, Strict-Transport-Security', async () => {
    const session = await createSession(t);
    const responses = [
      ...(await Promise.all(JSON_URLS.map((url) => t.app.inject({ url })))),
      await t.app.inject({ url: `/v1/sessions/${session.id}`, headers: owner(t) }),
      await t.app.inject({ url: `/v1/sessions/${session.id}` }),
      await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: { ...owner(t), 'content-type': 'application/json' }, payload: '{' }),
      await t.app.inject({ url: `/s/${session.token}` }),
      await t.app.inject({ url: '/s/unknown' }),
      await t.app.inject({ url: '/assets/human.css' }),
    ];
    for (const res of responses) {
      expect(res.headers['x-content-type-options'], res.raw.req.url).toBe('nosniff');
      expect(res.headers['strict-transport-security'], res.raw.req.url).toBe(STRICT_TRANSPORT_SECURITY);
    }
  });

  it('carries no Strict-Transport-Security while the public origin is plain http', async () => {
    await withTestApp(db, { config: { publicOrigin: 'http://127.0.0.1:8080' } }, async (plain) => {
      for (const url of [...JSON_URLS, '/s/unknown']) {
        const res = await plain.app.inject({ url });
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['strict-transport-security']).toBeUndefined();
      }
    });
  });
});

describe('the human pages', () => {
  it('ask for no browser feature, keep a browsing context of their own and cannot be framed', async () => {
    const session = await createSession(t);
    const pages = [
      await t.app.inject({ url: `/s/${session.token}` }),
      await t.app.inject({ url: '/s/unknown' }),
      await t.app.inject({ method: 'POST', url: `/s/${session.token}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'a=1' }),
    ];
    for (const page of pages) {
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['permissions-policy']).toMatch(/camera=\(\).*geolocation=\(\).*microphone=\(\)/);
      expect(page.headers['cross-origin-opener-policy']).toBe('same-origin');
      expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
  });
});
