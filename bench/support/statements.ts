import type { BenchDatabase } from './database.js';
import type { Contender, Pass } from './rounds.js';

/**
 * What PostgreSQL spent its time on while a figure's subject ran: pg_stat_statements of the
 * bench's database (every statement, those inside trigger functions too), counted over the timed
 * part of each round of the subject only (the database's entries are reset before it and read
 * after; the warm-up pass is not counted), then printed as the statements with the most total
 * time, with their calls, mean time and share of all statement time.
 */

interface Counted {
  query: string;
  calls: number;
  totalMs: number;
}

export interface StatementStats {
  /** Runs the timed part of a subject's pass with its statements counted (not in the warm-up pass). */
  counted<T>(pass: Pass, work: () => Promise<T>): Promise<T>;
  /** A contender whose whole pass is counted. */
  contender(subject: Contender): Contender;
  /** The top statements by total time over every counted pass so far. */
  print(title: string, top?: number): void;
}

const OWN = /pg_stat_statements/;
const ENTRIES = `
SELECT queryid::text AS id, query, calls::integer AS calls, total_exec_time AS total_ms FROM pg_stat_statements
 WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`;
const RESET = `SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)`;

const oneLine = (query: string, width: number): string => {
  const flat = query.replace(/\s+/g, ' ').trim();
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
};

export function statementStats(db: BenchDatabase): StatementStats {
  const totals = new Map<string, Counted>();
  const counted = async <T>(pass: Pass, work: () => Promise<T>): Promise<T> => {
    if (db.noStatementStats !== undefined || pass.round === 0) return work();
    await db.pool.query(RESET);
    const result = await work();
    for (const row of (await db.pool.query<{ id: string; query: string; calls: number; total_ms: number }>(ENTRIES)).rows) {
      if (OWN.test(row.query)) continue;
      const sum = totals.get(row.id) ?? { query: row.query, calls: 0, totalMs: 0 };
      sum.calls += row.calls;
      sum.totalMs += row.total_ms;
      totals.set(row.id, sum);
    }
    return result;
  };
  return {
    counted,
    contender: (subject) => (pass) => counted(pass, () => subject(pass)),
    print(title, top = 8) {
      if (db.noStatementStats !== undefined) {
        console.log(`  statements of ${title}: not counted, pg_stat_statements is not available on this server (${db.noStatementStats})`);
        return;
      }
      const rows = [...totals.values()].sort((a, b) => b.totalMs - a.totalMs);
      const all = rows.reduce((sum, r) => sum + r.totalMs, 0);
      console.log(`  statements of ${title}, by total time over its rounds (pg_stat_statements):`);
      console.log(`    ${'share'.padStart(6)}  ${'total ms'.padStart(9)}  ${'calls'.padStart(7)}  ${'mean ms'.padStart(8)}  statement`);
      for (const r of rows.slice(0, top)) {
        const share = `${((100 * r.totalMs) / all).toFixed(1)}%`;
        console.log(`    ${share.padStart(6)}  ${r.totalMs.toFixed(0).padStart(9)}  ${String(r.calls).padStart(7)}  ${(r.totalMs / r.calls).toFixed(3).padStart(8)}  ${oneLine(r.query, 110)}`);
      }
    },
  };
}
