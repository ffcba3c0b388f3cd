import { Pool } from 'undici';
import { plainInsert } from './support/baseline.js';
import { benchDatabase } from './support/database.js';
import { printResult, type LoopOptions } from './support/measure.js';
import { startBenchService } from './support/service.js';
import { acceptedSubmissions, createSessions, SUBMISSION_SESSIONS } from './support/submissions.js';

/**
 * Accepted human submissions per second: form posts with the page's own (same-origin) headers, over
 * HTTP to the app on loopback, each answering a Session of its own (created beforehand through the
 * owner API, outside the timed loop), at 8 and at 32 concurrent clients, against the plain
 * single-row INSERT at the same concurrency over the same pool, measured in the same run. The
 * workspace has no webhook endpoint: nothing is queued.
 */

const CLIENTS = [8, 32];
const options = { durationMs: 5_000, warmupMs: 1_000 };
const TARGET = 0.4;

const db = await benchDatabase({ poolSize: 10 });
const service = await startBenchService(db.url, db.pool);
const http = new Pool(service.baseUrl, { connections: Math.max(...CLIENTS), pipelining: 1 });

try {
  for (const clients of CLIENTS) {
    const loop: LoopOptions = { concurrency: clients, ...options };
    const baseline = await plainInsert(db, loop);
    const sessions = await createSessions(http, service.ownerKey, SUBMISSION_SESSIONS);
    const subject = await acceptedSubmissions(http, sessions, loop);
    printResult(`human submissions, ${clients} clients, each on its own Session, against a plain INSERT`, { subject, baseline, target: TARGET });
  }
} finally {
  await http.close();
  await service.close();
  await db.close();
}
