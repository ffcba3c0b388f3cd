import { appendContender, INSERT_AND_NOTIFY, plainInsert, scriptContender } from './support/baseline.js';
import { benchDatabase } from './support/database.js';
import { startLoadGenerator } from './support/load.js';
import { heading, printFigure, ratios } from './support/result.js';
import { interleave } from './support/rounds.js';
import { statementStats } from './support/statements.js';

/**
 * Events appended per second through `append` (one event per transaction, each writer on its own
 * stream), run by the load generator's process, against a plain single-row INSERT of the same
 * payload at the same concurrency. The difference is the price of the log's guarantees: version
 * check, hash chain, transaction-ordered index, wake-up. Two reference rows give the floor of an
 * append: the store's events INSERT alone, sent by a writer that knows its stream's head (so no
 * read of the predecessor's link), and that INSERT with the wake-up a command awaits before it
 * answers (the fence that lets any later read, in any process, see the change).
 */

const WRITERS = 8;

const db = await benchDatabase({ poolSize: 2 });
const load = startLoadGenerator();
try {
  heading(
    `append: ${WRITERS} writers, one Session-sized event per transaction`,
    'The INSERT + NOTIFY line commits a NOTIFY with each INSERT, as appends have done: notifying commits serialize.',
  );
  const stats = statementStats(db);
  const results = await interleave({
    insert: await plainInsert(db, load, WRITERS),
    notify: await scriptContender(db, load, `INSERT + NOTIFY in one transaction, ${WRITERS} clients`, INSERT_AND_NOTIFY, WRITERS),
    append: stats.contender(appendContender(db, load, WRITERS)),
    insertAlone: appendContender(db, load, WRITERS, 'insert'),
    insertAndWakeup: appendContender(db, load, WRITERS, 'insert and wake-up'),
  });
  printFigure({ name: 'append / plain INSERT', values: ratios(results.append, results.insert), target: { op: '>=', value: 0.6 } });
  printFigure({ name: 'INSERT + NOTIFY / plain INSERT', values: ratios(results.notify, results.insert) });
  printFigure({ name: "the append's INSERT alone, its head known / plain INSERT (a floor)", values: ratios(results.insertAlone, results.insert) });
  printFigure({ name: "the append's INSERT and its awaited wake-up / plain INSERT (the floor of an append)", values: ratios(results.insertAndWakeup, results.insert) });
  stats.print('append');
} finally {
  await load.close();
  await db.close();
}
