import { performance } from 'node:perf_hooks';
import { SMTPServer } from 'smtp-server';
import { ManualClock } from '../src/clock.js';
import { Notifier } from '../src/notifications/index.js';
import { startTestApp } from '../test/support/app.js';
import { interactive } from '../test/support/sessions.js';
import { benchDatabase } from './support/database.js';
import { heading, printFigure } from './support/result.js';
import { statementStats } from './support/statements.js';

/**
 * 10,000 reminders falling due in the same second, all sent by the notifier to a local SMTP server
 * (smtp-server, in this process, accepting every message). 10,000 Sessions are created at one
 * instant of a manual clock, each with `notify: {email: [its own address], remind_after_seconds: 60}`;
 * their first messages are sent (timed too); then the clock moves 60 s on, and one notifier sends
 * every reminder now due (`drain`: claims of 32, each batch sent at once). Reported: the time to
 * send them all, and the statements the database ran per reminder (pg_stat_statements, every
 * statement of the bench's database while the reminders were sent). One round: the subject is
 * the whole backlog.
 */

const RESPONDERS = Number(process.env.BENCH_REMINDERS ?? 10_000);
const CREATORS = 16;
const REMIND_AFTER_S = 60;

const db = await benchDatabase({ poolSize: 20 });
let received = 0;
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  // A reverse lookup of 127.0.0.1 per connection would be the double's time, not the service's.
  disableReverseLookup: true,
  logger: false,
  onData(stream, _session, callback) {
    stream.on('data', () => undefined);
    stream.on('end', () => {
      received++;
      callback(null);
    });
  },
});
await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
const { port } = smtp.server.address() as { port: number };
const clock = new ManualClock(new Date());
const t = await startTestApp(db, { clock, config: { smtpUrl: `smtp://127.0.0.1:${port}` } });

/** Sends everything due now with one notifier; how long it took, in seconds. */
async function sendDue(): Promise<number> {
  const notifier = new Notifier(t.ctx);
  const started = performance.now();
  await notifier.drain();
  const seconds = (performance.now() - started) / 1000;
  await notifier.stop();
  return seconds;
}

const owed = async (kind: string): Promise<number> =>
  (await db.pool.query<{ n: number }>(`SELECT count(*)::integer AS n FROM notification_jobs WHERE kind = $1`, [kind])).rows[0]!.n;

try {
  heading(`${RESPONDERS} reminders due in the same second, one notifier, a local SMTP server`);
  const headers = { authorization: `Bearer ${t.ctx.config.ownerKey}`, 'content-type': 'application/json' };
  let next = 0;
  await Promise.all(
    Array.from({ length: CREATORS }, async () => {
      for (let i = next++; i < RESPONDERS; i = next++) {
        const payload = { interaction: interactive(), notify: { email: [`responder-${i}@example.test`], remind_after_seconds: REMIND_AFTER_S } };
        const res = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers, payload });
        if (res.statusCode !== 201) throw new Error(`create: ${res.statusCode} ${res.body}`);
      }
    }),
  );
  console.log(`  ${RESPONDERS} Sessions created at ${clock.now().toISOString()}`);

  const firstSeconds = await sendDue();
  if (received !== RESPONDERS) throw new Error(`first messages: ${received} received of ${RESPONDERS}`);
  printFigure({ name: `${RESPONDERS} first messages due at once, all sent`, values: [firstSeconds], unit: 's' });

  clock.advance(REMIND_AFTER_S * 1000);
  const due = await owed('reminder');
  if (due !== RESPONDERS) throw new Error(`${due} reminders due, not ${RESPONDERS}`);
  const stats = statementStats(db);
  let calls = 0;
  const reminderSeconds = await stats.counted({ round: 1, seconds: 0 }, async () => {
    const seconds = await sendDue();
    if (db.noStatementStats === undefined) {
      const { rows } = await db.pool.query<{ calls: string }>(
        `SELECT coalesce(sum(calls), 0)::text AS calls FROM pg_stat_statements
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'`,
      );
      calls = Number(rows[0]!.calls);
    }
    return seconds;
  });
  if (received !== 2 * RESPONDERS || (await owed('reminder')) !== 0) throw new Error(`reminders: ${received - RESPONDERS} received of ${RESPONDERS}`);
  printFigure({ name: `${RESPONDERS} reminders due in the same second, all sent`, values: [reminderSeconds], unit: 's' });
  printFigure({ name: 'reminders sent per second', values: [RESPONDERS / reminderSeconds], unit: '/s' });
  if (db.noStatementStats === undefined) printFigure({ name: 'statements per reminder (pg_stat_statements)', values: [calls / RESPONDERS] });
  stats.print('sending the reminders', 10);
} finally {
  await t.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await db.close();
}
