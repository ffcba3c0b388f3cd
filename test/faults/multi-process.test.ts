import { expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { purgeCounts } from '../purge/support.js';
import { startTestApp } from '../support/app.js';
import type { ServiceProcess } from '../support/processes.js';
import { remote, type Answer, type Remote } from '../support/remote.js';
import { createSession, interactive } from '../support/sessions.js';
import { registerVerified } from '../webhooks/support.js';
import { answerWith, successesById, useFaultTest } from './support.js';

/**
 * The deployment as an operator scales it: three API processes and two `worker` processes (every
 * background role) over one database. Clients drive load through every API process in turn; mid
 * load one API process and one worker are SIGKILLed, then started again. Afterwards: every
 * acknowledged write reads back through every API process; a PATCH acknowledged by one process
 * was never followed by an older ETag from another; every accepted answer's webhook got exactly
 * one 2xx; every Session that fell due was purged once.
 */

const { receiver, config, db, t, processes } = useFaultTest();

const CLIENTS = 4;
/** Sessions each client makes at least, and at least AFTER_RESTART once the killed processes are back; the kill comes once a third of CLIENTS * SESSIONS_PER_CLIENT are made. */
const SESSIONS_PER_CLIENT = 6;
const AFTER_RESTART = 2;
const PATCHES_PER_SESSION = 3;

interface Tracked {
  id: string;
  token: string;
  /** The newest revision a write to it was acknowledged at. */
  revision: number;
  /** A write to it whose outcome is unknown (its process died): later revisions may exist. */
  uncertain: boolean;
  answered: boolean;
}

const revisionOf = (etag: string): number => Number(/^"(\d+)\./.exec(etag)![1]);

/** A request cut off after it was sent: whether it took effect is not known. */
class UnknownOutcome extends Error {
  constructor(cause: unknown) {
    super('the connection was cut after the request was sent', { cause });
  }
}

it('3 API and 2 worker processes, one of each SIGKILLed mid-load and restarted: nothing acknowledged lost, no stale read, one 2xx per webhook, each purge once', async () => {
  await registerVerified(t, receiver);
  // While the kill is prepared, every attempt is answered 503 (retry in a second): a worker dies
  // then, never between a 2xx it received and the record of it (that 2xx could not be told apart
  // from a repeat); afterwards, 200.
  let refusing = false;
  const answers = answerWith(receiver, () => (refusing ? 503 : 200), { 'retry-after': '1' });

  const apis: ServiceProcess[] = await Promise.all([processes.api(), processes.api(), processes.api()]);
  const workers: ServiceProcess[] = await Promise.all([processes.worker(), processes.worker()]);
  const clients = (): Remote[] => apis.map((api) => remote(api.baseUrl, config.ownerKey!));
  // Sessions that fall due at once: made through an app on a clock in 2020.
  const early = await startTestApp(db, { config, clock: new ManualClock('2020-01-01T00:00:00.000Z') });

  const tracked: Tracked[] = [];
  const due: string[] = [];
  let checks = 0;
  const violations: string[] = [];
  let sent = 0;
  /** How many requests had been sent when the processes were killed, and when they were back. */
  const outage = { killed: 0, restarted: 0 };

  /**
   * The request through API process `at`, or the next one up (never `except`) while they refuse
   * connections (down: nothing was sent). Cut off after it was sent, its outcome is unknown.
   */
  async function through(at: number, except: number | undefined, request: (api: Remote) => Promise<Answer>): Promise<{ answer: Answer; via: number }> {
    for (let step = 0; step < 100 * apis.length; step++) {
      const via = (at + step) % apis.length;
      if (via === except) continue;
      try {
        sent++;
        return { answer: await request(clients()[via]!), via };
      } catch (error) {
        if ((error as { cause?: { code?: string } }).cause?.code !== 'ECONNREFUSED') throw new UnknownOutcome(error);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    throw new Error('no API process took the request');
  }

  /** A write: undefined when its outcome is unknown (the caller marks what it touched). */
  const write = (at: number, request: (api: Remote) => Promise<Answer>) =>
    through(at, undefined, request).catch((error: unknown) => {
      if (error instanceof UnknownOutcome) return undefined;
      throw error;
    });

  /** A read through any process but `except`, tried again when cut off. */
  async function read(at: number, except: number | undefined, path: string): Promise<{ answer: Answer; via: number }> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await through(at + attempt, except, (api) => api.call('GET', path));
      } catch (error) {
        if (!(error instanceof UnknownOutcome) || attempt >= 20) throw error;
      }
    }
  }

  async function client(n: number): Promise<void> {
    let afterRestart = 0;
    for (let s = 0; s < SESSIONS_PER_CLIENT || afterRestart < AFTER_RESTART; s++) {
      if (outage.restarted > 0) afterRestart++;
      const at = n + s;
      due.push((await createSession(early)).id);
      const created = await write(at, (api) => api.call('POST', '/v1/sessions', { body: { interaction: interactive() } }));
      if (created?.answer.status !== 201) continue;
      const { id, human_url } = created.answer.json<{ id: string; human_url: string }>();
      const session: Tracked = { id, token: human_url.split('/s/')[1]!, revision: 1, uncertain: false, answered: false };
      tracked.push(session);
      let etag = created.answer.etag!;
      for (let p = 0; p < PATCHES_PER_SESSION; p++) {
        const patched = await write(at + p + 1, (api) => api.publish(id, etag));
        if (patched?.answer.status !== 200) {
          // Lost with its process, or refused as stale after an earlier unknown one: read where it stands.
          session.uncertain ||= patched === undefined;
          etag = (await read(at + p, undefined, `/v1/sessions/${id}`)).answer.etag!;
          continue;
        }
        etag = patched.answer.etag!;
        session.revision = revisionOf(etag);
        // Read your write through another process: never the older ETag.
        const seen = await read(patched.via + 1, patched.via, `/v1/sessions/${id}`);
        checks++;
        if (seen.answer.etag !== etag) violations.push(`${id}: PATCH through ${patched.via} answered ${etag}, GET through ${seen.via} ${seen.answer.etag}`);
      }
      const answered = await write(at + 2, (api) => api.answer(session.token, session.revision, `cev_${id.slice(4)}`));
      if (answered?.answer.status === 200) session.answered = true;
      else session.uncertain ||= answered === undefined;
    }
  }

  /** Once a third of the Sessions are made: one API process and one worker killed, then started again. */
  async function crash(): Promise<void> {
    while (tracked.length < (CLIENTS * SESSIONS_PER_CLIENT) / 3) await new Promise((resolve) => setTimeout(resolve, 50));
    refusing = true;
    // No 2xx now goes out; wait until every one that did is recorded.
    await processes.until(
      async () => (await db.pool.query<{ n: number }>(`SELECT count(*)::integer AS n FROM webhook_deliveries WHERE status = 'delivered'`)).rows[0]!.n,
      (n) => n >= successesById(answers).filter((k) => k > 0).length,
      'every 2xx recorded',
    );
    const [api, worker] = [apis[1]!, workers[0]!];
    await Promise.all([api.kill(), worker.kill()]);
    outage.killed = sent;
    refusing = false;
    await new Promise((resolve) => setTimeout(resolve, 500));
    // On a port of its own: the freed one may already be another connection's local port.
    [apis[1], workers[0]] = await Promise.all([processes.api(), processes.worker()]);
    outage.restarted = sent;
  }

  await Promise.all([...Array.from({ length: CLIENTS }, (_, n) => client(n)), crash()]);
  await early.close();

  // Every acknowledged write, through every API process.
  for (const session of tracked) {
    for (const api of clients()) {
      const res = await api.call('GET', `/v1/sessions/${session.id}`);
      expect(res.status, `${session.id} through ${api.baseUrl}`).toBe(200);
      const revision = revisionOf(res.etag!);
      if (session.uncertain) expect(revision).toBeGreaterThanOrEqual(session.revision);
      else expect(revision, session.id).toBe(session.revision);
      if (session.answered) expect(res.json<{ responses: unknown[] }>().responses.length).toBe(1);
    }
  }

  // Every accepted answer's webhook delivered, once.
  const accepted = async () => (await db.pool.query<{ n: number }>(`SELECT count(*)::integer AS n FROM events WHERE type = 'response.accepted'`)).rows[0]!.n;
  const undelivered = async () => (await db.pool.query<{ n: number }>(`SELECT count(*)::integer AS n FROM webhook_deliveries WHERE status <> 'delivered'`)).rows[0]!.n;
  await processes.until(undelivered, (n) => n === 0, 'every delivery made', 400);
  expect(successesById(answers)).toEqual(Array(await accepted()).fill(1));
  expect(tracked.filter((s) => s.answered).length).toBeGreaterThan(0);

  // Every due Session purged, once, and gone through every API process.
  await processes.until(async () => [...(await purgeCounts(db, due)).values()], (counts) => counts.every((n) => n > 0), 'every due Session purged', 400);
  expect([...(await purgeCounts(db, due)).values()]).toEqual(Array(due.length).fill(1));
  for (const api of clients()) expect((await api.call('GET', `/v1/sessions/${due.at(-1)}`)).status).toBe(404);

  console.log(
    `read-your-write checks across processes: ${checks}, violations: ${violations.length}; ` +
      `${tracked.length} Sessions acknowledged, ${tracked.filter((s) => s.uncertain).length} with an unknown outcome, ` +
      `${due.length} purged, ${answers.size} webhooks; requests ${outage.killed} before the kill, ` +
      `${outage.restarted - outage.killed} until the restart, ${sent - outage.restarted} after`,
  );
  // Mid-load: requests went on while the two processes were down, and after they came back.
  expect(outage.restarted - outage.killed).toBeGreaterThan(0);
  expect(sent - outage.restarted).toBeGreaterThan(0);
  expect(violations).toEqual([]);
  expect(checks).toBeGreaterThan(CLIENTS * SESSIONS_PER_CLIENT);
}, 240_000);
