import { describe, expect, it } from 'vitest';
import { ManualClock, HOUR } from '../../src/clock.js';
import { expectEnvelope } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { SAME_ORIGIN, postForm } from '../human/form-post.js';
import { addSession, expectRateLimited, newClient, postTrial, startTrial } from './support.js';

/**
 * Each trial limit at its edge, with the clock moved past the window it counts in until the
 * limit lifts; every refusal is 429 RATE_LIMITED with a Retry-After that holds to the second.
 */

const clock = new ManualClock('2026-05-01T08:00:00.000Z');
const { db, t } = useTestApp({ clock });

const MINUTE = 60_000;
const SECOND = 1000;

function answer(token: string) {
  const body = new URLSearchParams([
    ['client_event_id', `cev_${token.slice(0, 20)}`],
    ['surface_revision', '1'],
    ['action_id', 'approve'],
    ['data.amount', '5'],
  ]);
  return postForm(t, token, body.toString(), SAME_ORIGIN);
}

describe('active Sessions per trial', () => {
  it('accepts the 3rd, refuses the 4th until the oldest action window ends', async () => {
    const client = newClient();
    const trial = await startTrial(t, client);
    clock.advance(MINUTE);
    await addSession(t, trial.credential, client);
    clock.advance(MINUTE);
    await addSession(t, trial.credential, client); // the 3rd active Session
    clock.advance(MINUTE);
    // The first Session's window ends 57 minutes from now.
    expectRateLimited(await postTrial(t, { credential: trial.credential, from: client }), 57 * 60);
    clock.set(new Date(Date.parse(trial.action_expires_at) - SECOND));
    expectRateLimited(await postTrial(t, { credential: trial.credential, from: client }), 1);
    clock.advance(SECOND);
    await addSession(t, trial.credential, client);
    // Three active again: the next place frees when the second Session's window ends.
    expectRateLimited(await postTrial(t, { credential: trial.credential, from: client }), 60);
  });

  it('an answered Session is no longer active: its place frees at once', async () => {
    const trial = await startTrial(t);
    const second = await addSession(t, trial.credential);
    await addSession(t, trial.credential);
    expectRateLimited(await postTrial(t, { credential: trial.credential }), 3600);
    expect((await answer(second.token)).statusCode).toBe(200);
    await addSession(t, trial.credential);
  });
});

describe('Sessions per trial and its creation window', () => {
  it('accepts the 10th Session, refuses the 11th for good; a new trial is the way on', async () => {
    const client = newClient();
    const trial = await startTrial(t, client);
    let count = 1;
    while (count < 10) {
      if (count % 3 === 0) clock.advance(HOUR); // the earlier ones' action windows end
      await addSession(t, trial.credential, client);
      count++;
    }
    // This client may start a new trial now: the least wait Retry-After can give.
    expectRateLimited(await postTrial(t, { credential: trial.credential, from: client }), 1);
    clock.advance(HOUR);
    expectRateLimited(await postTrial(t, { credential: trial.credential, from: client }), 1);
    expect((await postTrial(t, { from: client })).statusCode).toBe(201);
  });

  it('creates until trial_expires_at and nothing from then on', async () => {
    const client = newClient();
    const trial = await startTrial(t, client);
    const endsAt = Date.parse(trial.trial_expires_at);
    expect(endsAt - Date.parse(trial.action_expires_at)).toBe(23 * HOUR);
    clock.set(new Date(endsAt - 1));
    const last = await addSession(t, trial.credential, client);
    expect(last.trial_expires_at).toBe(trial.trial_expires_at);
    clock.set(new Date(endsAt));
    const closed = await postTrial(t, { credential: trial.credential, from: client });
    expectRateLimited(closed, 1);
    expect(closed.json<{ error: { message: string } }>().error.message).toMatch(/creation window has ended/);
    // The trial's Sessions stay readable until their own deadlines.
    const read = await t.app.inject({ url: `/v1/trial/sessions/${last.id}`, headers: { authorization: `Bearer ${trial.credential}` } });
    expect(read.statusCode).toBe(200);
  });
});

describe('new trials per client in a rolling 24 hours', () => {
  it('accepts the 3rd trial of a client, refuses the 4th until the 1st leaves the window; other clients are not counted', async () => {
    const client = newClient();
    const first = await startTrial(t, client);
    clock.advance(MINUTE);
    await startTrial(t, client);
    clock.advance(MINUTE);
    await startTrial(t, client);
    clock.advance(MINUTE);
    const admittedAt = Date.parse(first.trial_expires_at) - 24 * HOUR;
    expectRateLimited(await postTrial(t, { from: client }), 24 * 3600 - 3 * 60);
    expect((await postTrial(t, { from: newClient() })).statusCode).toBe(201);
    // The refused attempt left nothing behind: a trial already started still creates Sessions.
    expect((await postTrial(t, { credential: first.credential, from: client })).statusCode).toBe(201);
    clock.set(new Date(admittedAt + 24 * HOUR - SECOND));
    expectRateLimited(await postTrial(t, { from: client }), 1);
    clock.advance(SECOND);
    expect((await postTrial(t, { from: client })).statusCode).toBe(201);
    // Now the 2nd and 3rd and this one count: the next place frees when the 2nd leaves.
    expectRateLimited(await postTrial(t, { from: client }), 60);
  });

  it('counts an IPv6 client by its /64 and an IPv4-mapped address as its IPv4 address', async () => {
    for (const from of ['2001:db8:5:6::1', '2001:db8:5:6::2', '2001:db8:5:6:a:b:c:d']) expect((await postTrial(t, { from })).statusCode).toBe(201);
    expectEnvelope(await postTrial(t, { from: '2001:db8:5:6::ffff' }), 429, 'RATE_LIMITED');
    expect((await postTrial(t, { from: '2001:db8:5:7::1' })).statusCode).toBe(201);
    const v4 = newClient();
    for (let i = 0; i < 3; i++) expect((await postTrial(t, { from: v4 })).statusCode).toBe(201);
    expectEnvelope(await postTrial(t, { from: `::ffff:${v4}` }), 429, 'RATE_LIMITED');
  });

  it('keeps no client address in the log, only a keyed digest', async () => {
    const from = '192.0.2.77';
    await startTrial(t, from);
    const { rows } = await db.pool.query<{ data: string }>(`SELECT data FROM events WHERE type = 'trial.admitted' ORDER BY global_position DESC LIMIT 1`);
    const { client } = JSON.parse(rows[0]!.data) as { client: string };
    expect(client).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const everything = await db.pool.query(`SELECT count(*)::int AS n FROM events WHERE data LIKE '%192.0.2.77%' OR metadata LIKE '%192.0.2.77%'`);
    expect(everything.rows[0].n).toBe(0);
  });
});
