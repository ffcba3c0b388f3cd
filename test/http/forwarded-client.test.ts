import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { clientDigest } from '../../src/clients.js';
import type { Config } from '../../src/config.js';
import { TRIAL_LIMITS } from '../../src/trials/index.js';
import { useMailbox } from '../accounts/support.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { useTestDatabase } from '../support/lifecycle.js';
import { freePort } from '../support/processes.js';
import { interactive } from '../support/sessions.js';
import { newClient } from '../trials/support.js';

/**
 * Which address the per-client limits count, through the real HTTP server: every request
 * connects from 127.0.0.1, which plays the proxy in front of the service, and carries the
 * X-Forwarded-For chain that proxy would pass on: whatever the client wrote (forged entries),
 * then what each proxy appended. At every accepted SVC_TRUST_PROXY the limits count the address
 * the last trusted proxy saw, never an entry the client wrote.
 */

const db = useTestDatabase();
const mailbox = useMailbox();
const clock = new ManualClock('2026-06-01T00:00:00.000Z');

/** The first proxy's own address, as the second one (127.0.0.1) appends it. */
const FIRST_PROXY = '10.1.2.3';

interface Setting {
  name: string;
  trustProxy: Config['trustProxy'];
  /** The chain the service receives for a client at `client` that forged `forged`. */
  chain(forged: string, client: string): string;
  /** Whom the limits count: the client, or (trusting no proxy) the proxy itself. */
  counts: 'client' | 'proxy';
}

const SETTINGS: Setting[] = [
  { name: 'unset: the socket peer, whatever is forwarded', trustProxy: 0, chain: (forged, client) => `${forged}, ${client}`, counts: 'proxy' },
  { name: 'a hop count of 1', trustProxy: 1, chain: (forged, client) => `${forged}, ${client}`, counts: 'client' },
  { name: 'a hop count of 2', trustProxy: 2, chain: (forged, client) => `${forged}, ${client}, ${FIRST_PROXY}`, counts: 'client' },
  { name: "the proxy's address", trustProxy: ['127.0.0.1'], chain: (forged, client) => `${forged}, ${client}`, counts: 'client' },
  {
    name: 'a named range and a CIDR range, two proxies',
    trustProxy: ['loopback', '10.1.0.0/16'],
    chain: (forged, client) => `${forged}, ${FIRST_PROXY}, ${client}, ${FIRST_PROXY}`,
    counts: 'client',
  },
];

let addresses = 0;
const newAddress = () => `forwarded-${addresses++}@example.com`;

async function post(t: TestApp, path: string, chain: string, body: string, headers: Record<string, string>) {
  const res = await request(`${t.ctx.config.publicOrigin}${path}`, {
    method: 'POST',
    headers: { 'x-forwarded-for': chain, ...headers },
    body,
  });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

const postJson = (t: TestApp, path: string, chain: string, body: object) => post(t, path, chain, JSON.stringify(body), { 'content-type': 'application/json' });

/** The sign-in page's form, posted as the page would, from a browser whose requests carry `chain`. */
async function signInPage(t: TestApp, chain: string, email: string) {
  const page = await request(`${t.ctx.config.publicOrigin}/app/sign-in`, { headers: { 'x-forwarded-for': chain } });
  const html = await page.body.text();
  const cookie = String(page.headers['set-cookie']).split(';')[0]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
  return post(t, '/app/sign-in', chain, new URLSearchParams({ csrf, email }).toString(), {
    'content-type': 'application/x-www-form-urlencoded',
    'sec-fetch-site': 'same-origin',
    cookie,
  });
}

/** The client digest the sign-in link mailed to `email` was counted under. */
async function linkClient(t: TestApp, email: string): Promise<string> {
  const address = t.ctx.streamKeys.deploymentKey.digest('sign-in-address', email);
  const { rows } = await db.pool.query<{ client: string }>('SELECT client FROM sign_in_links WHERE address = $1', [address]);
  expect(rows).toHaveLength(1);
  return rows[0]!.client;
}

describe.each(SETTINGS)('SVC_TRUST_PROXY $name', (setting) => {
  it('trial starts and sign-in links count the address the last trusted proxy saw', async () => {
    const port = await freePort();
    const t = await startTestApp(db, {
      clock,
      listen: true,
      config: { port, publicOrigin: `http://127.0.0.1:${port}`, trustProxy: setting.trustProxy, smtpUrl: mailbox.url },
    });
    try {
      const client = newClient();
      const counted = setting.counts === 'client' ? client : '127.0.0.1';
      const digest = (purpose: 'trial-client' | 'sign-in-client') => clientDigest(t.ctx.streamKeys.deploymentKey, purpose, counted);

      // Each start forges another left-most address; all of them count as the one client.
      for (let i = 0; i < TRIAL_LIMITS.trialsPerClient; i++) {
        const started = await postJson(t, '/v1/trial/sessions', setting.chain(newClient(), client), { interaction: interactive() });
        expect(started.status, started.text).toBe(201);
        const { workspace_id } = JSON.parse(started.text) as { workspace_id: string };
        const { rows } = await db.pool.query<{ client: string }>('SELECT client FROM trial_admissions WHERE workspace_id = $1', [workspace_id]);
        expect(rows[0]!.client).toBe(digest('trial-client'));
      }
      const refused = await postJson(t, '/v1/trial/sessions', setting.chain(newClient(), client), { interaction: interactive() });
      expect(refused.status, refused.text).toBe(429);
      expect(JSON.parse(refused.text).error.code).toBe('RATE_LIMITED');
      expect(refused.headers['retry-after']).toBe(String(TRIAL_LIMITS.admissionWindowMs / 1000));

      const json = newAddress();
      expect((await postJson(t, '/v1/auth/email-link', setting.chain(newClient(), client), { email: json })).status).toBe(202);
      expect(await linkClient(t, json)).toBe(digest('sign-in-client'));

      const page = newAddress();
      const sent = await signInPage(t, setting.chain(newClient(), client), page);
      expect(sent.status, sent.text).toBe(200);
      expect(await linkClient(t, page)).toBe(digest('sign-in-client'));
    } finally {
      await t.close();
    }
  });
});
