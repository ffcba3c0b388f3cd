import { describe, expect, it } from 'vitest';
import { ManualClock, HOUR } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { startTestApp } from '../support/app.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { expectRateLimited, newClient, postTrial, startTrial } from './support.js';

/**
 * Who the client is (the socket's peer, or the forwarded client behind a trusted proxy), and the
 * overall limit on new trials. Each test has an app of its own over one database; the overall
 * limit counts every trial in it, so it runs last.
 */

const db = useTestDatabase();
const clock = new ManualClock('2026-06-01T00:00:00.000Z');

const behindProxy = (client: string) => ({ from: '10.0.0.2', headers: { 'x-forwarded-for': client } });

describe('the client of per-client limits', () => {
  it('is the socket peer when SVC_TRUST_PROXY is unset: X-Forwarded-For changes nothing', async () => {
    const t = await startTestApp(db, { clock });
    try {
      const proxy = newClient();
      for (let i = 0; i < 3; i++) expect((await postTrial(t, { from: proxy, headers: { 'x-forwarded-for': newClient() } })).statusCode).toBe(201);
      expectRateLimited(await postTrial(t, { from: proxy, headers: { 'x-forwarded-for': newClient() } }), 24 * 3600);
    } finally {
      await t.close();
    }
  });

  it('is the forwarded client behind a trusted proxy', async () => {
    const t = await startTestApp(db, { clock, config: { trustProxy: ['10.0.0.0/8'] } });
    try {
      const client = newClient();
      for (let i = 0; i < 3; i++) expect((await postTrial(t, behindProxy(client))).statusCode).toBe(201);
      expectRateLimited(await postTrial(t, behindProxy(client)), 24 * 3600);
      expect((await postTrial(t, behindProxy(newClient()))).statusCode).toBe(201);
      // A peer that is no trusted proxy is itself the client, whatever it forwards.
      const direct = newClient();
      for (let i = 0; i < 3; i++) expect((await postTrial(t, { from: direct, headers: { 'x-forwarded-for': newClient() } })).statusCode).toBe(201);
      expectRateLimited(await postTrial(t, { from: direct, headers: { 'x-forwarded-for': newClient() } }), 24 * 3600);
    } finally {
      await t.close();
    }
  });

  it('SVC_TRUST_PROXY takes a hop count, or addresses and CIDR ranges; never true', () => {
    expect(loadConfig({}).trustProxy).toBe(0);
    expect(loadConfig({ SVC_TRUST_PROXY: 'false' }).trustProxy).toBe(0);
    expect(loadConfig({ SVC_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(() => loadConfig({ SVC_TRUST_PROXY: 'true' })).toThrow(/^SVC_TRUST_PROXY must be a hop count .* or the proxies' addresses and CIDR ranges .*; true is refused/);
    expect(loadConfig({ SVC_TRUST_PROXY: '10.0.0.0/8, 192.0.2.1,loopback' }).trustProxy).toEqual(['10.0.0.0/8', '192.0.2.1', 'loopback']);
    expect(() => loadConfig({ SVC_TRUST_PROXY: '10.0.0.0/8,proxy.example' })).toThrow(/SVC_TRUST_PROXY/);
  });

  it('a hop count trusts that many proxies from the socket inwards', async () => {
    const t = await startTestApp(db, { clock, config: { trustProxy: 1 } });
    try {
      const client = newClient();
      // One trusted hop: the rightmost forwarded address is the client; what it was sent is not believed.
      const via = (spoofed: string) => ({ from: newClient(), headers: { 'x-forwarded-for': `${spoofed}, ${client}` } });
      for (let i = 0; i < 3; i++) expect((await postTrial(t, via(newClient()))).statusCode).toBe(201);
      expectRateLimited(await postTrial(t, via(newClient())), 24 * 3600);
    } finally {
      await t.close();
    }
  });
});

describe('new trials overall in a rolling 24 hours', () => {
  it('accepts the 200th trial, refuses the 201st from any client until the oldest leaves the window', async () => {
    clock.advance(24 * HOUR); // every trial the tests above started has left the window
    const t = await startTestApp(db, { clock });
    try {
      const oldest = clock.now().getTime();
      await startTrial(t);
      clock.advance(10_000);
      const started = await Promise.all(Array.from({ length: 199 }, () => postTrial(t)));
      expect(started.filter((r) => r.statusCode !== 201).map((r) => r.body)).toEqual([]);
      expect((await db.pool.query(`SELECT count(*)::int AS n FROM trial_admissions WHERE admitted_at > $1`, [new Date(oldest - 1)])).rows[0].n).toBe(200);
      const refused = await postTrial(t);
      expectRateLimited(refused, 24 * 3600 - 10);
      expect(refused.json<{ error: { message: string } }>().error.message).toMatch(/as many trials as it may/);
      clock.set(new Date(oldest + 24 * HOUR - 1000));
      expectRateLimited(await postTrial(t), 1);
      clock.advance(1000);
      expect((await postTrial(t)).statusCode).toBe(201);
      // The other 199 left the window 10 seconds after the oldest.
      expectRateLimited(await postTrial(t), 10);
    } finally {
      await t.close();
    }
  });
});
