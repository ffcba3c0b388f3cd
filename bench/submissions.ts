import { Pool } from 'undici';
import { newClientEventId } from '../src/human/form.js';
import { everyField } from '../test/human/fixtures.js';
import { formBody, PAGE_FORM_HEADERS } from '../test/human/form-post.js';
import { plainInsert } from './support/baseline.js';
import { benchDatabase } from './support/database.js';
import { printResult, timedLoop, type LoopOptions } from './support/measure.js';
import { startBenchService } from './support/service.js';

/**
 * Accepted human submissions per second: form posts with the page's own (same-origin) headers, over
 * HTTP to the app on loopback, each answering a Session of its own (created beforehand through the
 * owner API, outside the timed loop), at 8 and at 32 concurrent clients, against the plain
 * single-row INSERT at the same concurrency over the same pool, measured in the same run.
 *
 * An acceptance is one transaction: the link lookup, the Session's stream read and opened, the
 * decision, a signed receipt, the sealed response.accepted append with its inline view, and the
 * webhook queue check; then the confirmation page.
 */

const CLIENTS = [8, 32];
const options = { durationMs: 5_000, warmupMs: 1_000 };
const TARGET = 0.4;
/** Sessions created per client count: above what the warm-up and timed run can answer. */
const SESSIONS = Number(process.env.BENCH_SUBMISSION_SESSIONS ?? 3_000);

/** Every kind of field, answered: the conversion and the page do their full work. */
const answer = {
  name: 'Bea',
  notes: 'Leave it at the door\nthe back one',
  reason: 'late',
  quantity: 3,
  amount: 12.5,
  gift: true,
  channels: ['email', 'sms'],
};

const db = await benchDatabase({ poolSize: 10 });
const service = await startBenchService(db.url, db.pool);
const http = new Pool(service.baseUrl, { connections: Math.max(...CLIENTS), pipelining: 1 });

/** The human link tokens of `count` new Sessions, created through the owner API by 8 clients. */
async function createSessions(count: number): Promise<string[]> {
  const tokens: string[] = [];
  const body = JSON.stringify({ interaction: everyField });
  const headers = { authorization: `Bearer ${service.ownerKey}`, 'content-type': 'application/json' };
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (tokens.length < count) {
        const res = await http.request({ path: '/v1/sessions', method: 'POST', headers, body });
        const created = (await res.body.json()) as { human_url?: string };
        if (res.statusCode !== 201) throw new Error(`create: ${res.statusCode} ${JSON.stringify(created)}`);
        tokens.push(created.human_url!.split('/s/')[1]!);
      }
    }),
  );
  return tokens;
}

/** Answers one Session per call, as its page would: 200 with the confirmation, or the run fails. */
function submitter(tokens: string[]): () => Promise<void> {
  return async () => {
    const token = tokens.pop();
    if (token === undefined) throw new Error(`ran out of Sessions: set BENCH_SUBMISSION_SESSIONS above ${SESSIONS}`);
    const body = formBody(everyField, { clientEventId: newClientEventId(), revision: 1, actionId: 'approve', data: answer });
    const res = await http.request({ path: `/s/${token}`, method: 'POST', headers: PAGE_FORM_HEADERS, body });
    const page = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`submission: ${res.statusCode} ${/data-error-code="([A-Z_]+)"/.exec(page)?.[1] ?? ''}`);
  };
}

try {
  for (const clients of CLIENTS) {
    const loop: LoopOptions = { concurrency: clients, ...options };
    const baseline = await plainInsert(db, loop);
    const tokens = await createSessions(SESSIONS);
    const subject = await timedLoop(`POST /s/{token}, accepted`, loop, submitter(tokens));
    printResult(`human submissions, ${clients} clients, each on its own Session, against a plain INSERT`, { subject, baseline, target: TARGET });
  }
} finally {
  await http.close();
  await service.close();
  await db.close();
}
