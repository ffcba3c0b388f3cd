import { interactive } from '../test/support/sessions.js';
import { benchDatabase } from './support/database.js';
import { startLoadGenerator } from './support/load.js';
import { heading, printFigure, ratios } from './support/result.js';
import { interleave } from './support/rounds.js';
import { startBenchService } from './support/service.js';
import { statementStats } from './support/statements.js';
import { creationsContender } from './support/submitting.js';

/**
 * What a notification plan costs the create: POST /v1/sessions with `notify` (two addresses and a
 * reminder: the plan and its responders sealed into session.created, four jobs written in the same
 * transaction) against the same create without it, interleaved round by round at 8 connections,
 * from the load generator's process. Nothing is sent: no notifier runs (sending is never in the
 * request path). The figure is the cost ratio, without's rate over with's: at most 1.10.
 */

const CREATORS = 8;

const db = await benchDatabase({ poolSize: 10 });
const service = await startBenchService(db.url, db.pool);
const load = startLoadGenerator();
try {
  const create = (label: string, body: object) => creationsContender(load, service, { clients: CREATORS, label, body });
  const plan = { email: ['ana@example.com', 'bo@example.com'], remind_after_seconds: 3_600 };

  heading(`Session creation with notify and without, ${CREATORS} connections, interleaved`);
  const stats = statementStats(db);
  const baseline = statementStats(db);
  const creation = await interleave({
    without: baseline.contender(create('POST /v1/sessions', { interaction: interactive() })),
    notify: stats.contender(create('POST /v1/sessions with notify (2 addresses, a reminder)', { interaction: interactive(), notify: plan })),
  });
  printFigure({ name: 'create cost with notify / without (rate without over rate with)', values: ratios(creation.without, creation.notify), target: { op: '<=', value: 1.1 } });
  stats.print('POST /v1/sessions with notify');
  baseline.print('POST /v1/sessions without');
} finally {
  await load.close();
  await service.close();
  await db.close();
}
