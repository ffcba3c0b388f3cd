import { describe, expect, it } from 'vitest';
import { HOUR, ManualClock } from '../../src/clock.js';
import { postForm } from '../human/form-post.js';
import { expectEnvelope } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { interactive, owner } from '../support/sessions.js';
import { addSession, readTrial, startTrial } from '../trials/support.js';
import { Browser, CROSS_SITE, bearer, developer, errorCodeOf, inputValue, useMailbox } from './support.js';

/**
 * Claiming a trial into an account (POST /app/trials/claim): every outcome of the route, nothing of
 * the trial moving, and afterwards the account's keys reading (never changing) the trial's
 * Sessions, each until its result_available_until.
 */

const mailbox = useMailbox();
const clock = new ManualClock('2026-09-01T10:00:00.000Z');
const { db, t } = useTestApp(() => ({ clock, config: { smtpUrl: mailbox.url } }));

let accounts = 0;
const newDeveloper = () => developer(t, mailbox, `claim${++accounts}@example.com`);

async function claim(browser: Browser, credential: string, headers?: Record<string, string>, url = '/app/trials/claim') {
  const csrf = inputValue((await browser.get('/app/keys')).body, 'csrf');
  return browser.post(url, { csrf, management_credential: credential }, headers);
}

function answer(token: string) {
  const body = new URLSearchParams([
    ['client_event_id', `cev_${token.slice(0, 20)}`],
    ['surface_revision', '1'],
    ['action_id', 'approve'],
    ['data.amount', '5'],
  ]);
  return postForm(t, token, body.toString());
}

const claimEvents = async (workspaceId: string): Promise<number> =>
  Number((await db.pool.query(`SELECT count(*) AS n FROM events WHERE stream_id = $1`, [`claim-${workspaceId}`])).rows[0].n);

describe('POST /app/trials/claim', () => {
  it('records the claim once (303 ?claimed=1); the same account again answers the same and records nothing', async () => {
    const dev = await newDeveloper();
    const trial = await startTrial(t);
    const first = await claim(dev.browser, trial.credential);
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe('/app/keys?claimed=1');
    const page = await dev.browser.get('/app/keys?claimed=1');
    expect(page.body).toContain('The trial is claimed');
    expect(page.body).toContain(`<code>${trial.workspace_id}</code>`);
    const again = await claim(dev.browser, trial.credential);
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe('/app/keys?claimed=1');
    expect(await claimEvents(trial.workspace_id)).toBe(1);
  });

  it('answers 409 TRIAL_ALREADY_CLAIMED to another account', async () => {
    const trial = await startTrial(t);
    expect((await claim((await newDeveloper()).browser, trial.credential)).statusCode).toBe(303);
    const other = await claim((await newDeveloper()).browser, trial.credential);
    expect(other.statusCode).toBe(409);
    expect(errorCodeOf(other.body)).toBe('TRIAL_ALREADY_CLAIMED');
  });

  it('lets exactly one of two accounts claiming at once have the trial', async () => {
    const trial = await startTrial(t);
    const [a, b] = await Promise.all([newDeveloper(), newDeveloper()]);
    const outcomes = await Promise.all([claim(a.browser, trial.credential), claim(b.browser, trial.credential)]);
    expect(outcomes.map((res) => res.statusCode).sort()).toEqual([303, 409]);
    expect(await claimEvents(trial.workspace_id)).toBe(1);
  });

  it('answers 400 INVALID_SCHEMA to what is no management credential: a human link token, an owner or developer key', async () => {
    const dev = await newDeveloper();
    const trial = await startTrial(t);
    for (const credential of [trial.token, t.ctx.config.ownerKey!, dev.key, '', `${trial.credential}x`]) {
      const res = await claim(dev.browser, credential);
      expect(res.statusCode).toBe(400);
      expect(errorCodeOf(res.body)).toBe('INVALID_SCHEMA');
    }
  });

  it('answers 404 TRIAL_NOT_FOUND to an unknown credential and to a trial past its deletion time', async () => {
    const dev = await newDeveloper();
    const unknown = await claim(dev.browser, `svc_mg_${'A'.repeat(43)}`);
    expect(unknown.statusCode).toBe(404);
    expect(errorCodeOf(unknown.body)).toBe('TRIAL_NOT_FOUND');

    const trial = await startTrial(t);
    const last = await addSession(t, trial.credential);
    // The trial is gone once its creation window and its last Session's result have both ended.
    const deletesAt = Math.max(Date.parse(trial.trial_expires_at), Date.parse(last.result_available_until));
    clock.set(new Date(deletesAt));
    const browser = new Browser(t);
    await browser.signIn(mailbox, `claim${accounts}@example.com`);
    const gone = await claim(browser, trial.credential);
    expect(gone.statusCode).toBe(404);
    expect(errorCodeOf(gone.body)).toBe('TRIAL_NOT_FOUND');
  });

  it('refuses cross-origin (403), a wrong CSRF token (403), no session (303 to sign-in), a JSON body (415) and the credential in a URL (400)', async () => {
    const dev = await newDeveloper();
    const trial = await startTrial(t);
    const crossSite = await claim(dev.browser, trial.credential, CROSS_SITE);
    expect([crossSite.statusCode, errorCodeOf(crossSite.body)]).toEqual([403, 'ACTION_NOT_ALLOWED']);
    const forged = await dev.browser.post('/app/trials/claim', { csrf: 'forged', management_credential: trial.credential });
    expect([forged.statusCode, errorCodeOf(forged.body)]).toEqual([403, 'ACTION_NOT_ALLOWED']);
    const inUrl = await claim(dev.browser, trial.credential, undefined, `/app/trials/claim?management_credential=${trial.credential}`);
    expect([inUrl.statusCode, errorCodeOf(inUrl.body)]).toEqual([400, 'INVALID_SCHEMA']);
    const json = await t.app.inject({
      method: 'POST',
      url: '/app/trials/claim',
      headers: { 'sec-fetch-site': 'same-origin', cookie: `svc_account=${dev.browser.cookies.get('svc_account')}` },
      payload: { management_credential: trial.credential },
    });
    expect([json.statusCode, errorCodeOf(json.body)]).toEqual([415, 'INVALID_SCHEMA']);
    const signedOut = new Browser(t);
    const noSession = await signedOut.post('/app/trials/claim', { csrf: 'x', management_credential: trial.credential });
    expect(noSession.statusCode).toBe(303);
    expect(noSession.headers.location).toBe('/app/sign-in');
    expect(await claimEvents(trial.workspace_id)).toBe(0);
  });
});

describe("a claimed trial's Sessions", () => {
  it("are read by the account's keys, never changed (403), until each one's result_available_until; nothing of the trial moves", async () => {
    const dev = await newDeveloper();
    const stranger = await newDeveloper();
    const trial = await startTrial(t);
    clock.advance(HOUR / 2);
    const second = await addSession(t, trial.credential);
    expect((await answer(trial.token)).statusCode).toBe(200);
    const before = await readTrial(t, trial.credential, trial.id);
    const beforeRows = await db.pool.query(`SELECT * FROM trial_sessions ORDER BY session_id`);

    // Before the claim the developer's key sees nothing of it.
    expectEnvelope(await t.app.inject({ url: `/v1/sessions/${trial.id}`, headers: bearer(dev.key) }), 404, 'SESSION_NOT_FOUND');
    expect((await claim(dev.browser, trial.credential)).statusCode).toBe(303);

    const key = bearer(dev.key);
    const read = await t.app.inject({ url: `/v1/sessions/${trial.id}`, headers: key });
    expect(read.statusCode).toBe(200);
    expect(read.json().responses).toHaveLength(1);
    expect(read.json().responses[0].receipt).toBe(before.json().responses[0].receipt);
    for (const url of [`/v1/sessions/${trial.id}/events`, `/v1/sessions/${trial.id}/surfaces/1`, `/v1/sessions/${trial.id}/deliveries`]) {
      expect((await t.app.inject({ url, headers: key })).statusCode, url).toBe(200);
    }
    const eventId = read.json().responses[0].event_id as string;
    const writes = [
      t.app.inject({ method: 'PATCH', url: `/v1/sessions/${trial.id}`, headers: { ...key, 'if-match': read.headers.etag as string }, payload: { interaction: interactive() } }),
      t.app.inject({ method: 'POST', url: `/v1/sessions/${trial.id}/complete`, headers: { ...key, 'if-match': read.headers.etag as string } }),
      t.app.inject({ method: 'POST', url: `/v1/sessions/${trial.id}/events/${eventId}/redeliver`, headers: key }),
    ];
    for (const res of await Promise.all(writes)) expectEnvelope(res, 403, 'ACTION_NOT_ALLOWED');

    // Another account's key, and the owner key, still see nothing; the management credential keeps working.
    for (const headers of [bearer(stranger.key), owner(t)]) {
      expectEnvelope(await t.app.inject({ url: `/v1/sessions/${trial.id}`, headers }), 404, 'SESSION_NOT_FOUND');
    }
    const after = await readTrial(t, trial.credential, trial.id);
    expect(after.body).toBe(before.body);
    expect((await db.pool.query(`SELECT * FROM trial_sessions ORDER BY session_id`)).rows).toEqual(beforeRows.rows);
    expect((await addSession(t, trial.credential)).workspace_id).toBe(trial.workspace_id);

    // Each Session is readable until its own result_available_until, then not found to reads and writes alike.
    clock.set(new Date(Date.parse(trial.result_available_until) - 1));
    expect((await t.app.inject({ url: `/v1/sessions/${trial.id}`, headers: key })).statusCode).toBe(200);
    clock.set(new Date(Date.parse(trial.result_available_until)));
    for (const url of [`/v1/sessions/${trial.id}`, `/v1/sessions/${trial.id}/events`, `/v1/sessions/${trial.id}/surfaces/1`, `/v1/sessions/${trial.id}/deliveries`]) {
      expectEnvelope(await t.app.inject({ url, headers: key }), 404, 'SESSION_NOT_FOUND');
    }
    expectEnvelope(
      await t.app.inject({ method: 'POST', url: `/v1/sessions/${trial.id}/complete`, headers: { ...key, 'if-match': read.headers.etag as string } }),
      404,
      'SESSION_NOT_FOUND',
    );
    expect((await t.app.inject({ url: `/v1/sessions/${second.id}`, headers: key })).statusCode).toBe(200);
    clock.set(new Date(Date.parse(second.result_available_until)));
    expectEnvelope(await t.app.inject({ url: `/v1/sessions/${second.id}`, headers: key }), 404, 'SESSION_NOT_FOUND');
  });
});
