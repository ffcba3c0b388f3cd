import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { TestApp } from '../support/app.js';
import type { TestDatabase } from '../support/database.js';
import { postForm } from '../human/form-post.js';
import { PG_DUMP } from '../support/prerequisites.js';
import { owner } from '../support/sessions.js';

/** Calls shared by the purge tests. */

const execFileAsync = promisify(execFile);

export interface PurgeRecord {
  at: string;
  reason: string;
  purged_by: string;
}

/** Every session.purged event of the Session (one at most, if purge is right). */
export async function purgesOf(db: Pick<TestDatabase, 'pool'>, sessionId: string): Promise<PurgeRecord[]> {
  const { rows } = await db.pool.query<PurgeRecord>(
    `SELECT data::jsonb->>'at' AS at, data::jsonb->>'reason' AS reason, metadata::jsonb->>'purged_by' AS purged_by
       FROM events WHERE stream_id = $1 AND type = 'session.purged' ORDER BY global_position`,
    [sessionId],
  );
  return rows;
}

/** How many session.purged events each Session has, by Session. */
export async function purgeCounts(db: Pick<TestDatabase, 'pool'>, sessionIds: readonly string[]): Promise<Map<string, number>> {
  const { rows } = await db.pool.query<{ stream_id: string; purges: number }>(
    `SELECT stream_id, count(*)::integer AS purges FROM events WHERE type = 'session.purged' AND stream_id = ANY($1) GROUP BY stream_id`,
    [sessionIds],
  );
  return new Map(sessionIds.map((id) => [id, rows.find((r) => r.stream_id === id)?.purges ?? 0]));
}

/** Whether the Session's view row is still there (it goes with the purge). */
export async function hasView(db: Pick<TestDatabase, 'pool'>, sessionId: string): Promise<boolean> {
  const { rows } = await db.pool.query(`SELECT 1 FROM session_views WHERE session_id = $1`, [sessionId]);
  return rows.length === 1;
}

/** Answers the Session's first revision through its human link, as the page posts it. */
export async function answer(t: TestApp, token: string, values: Record<string, string>, clientEventId = `purge-test-${token.slice(0, 16)}`) {
  const form = new URLSearchParams({ client_event_id: clientEventId, surface_revision: '1', action_id: 'approve' });
  for (const [name, value] of Object.entries(values)) form.append(`data.${name}`, value);
  const res = await postForm(t, token, form.toString());
  if (res.statusCode !== 200) throw new Error(`answer failed: ${res.statusCode} ${res.body}`);
  return res;
}

/** Completes the Session at the ETag given. */
export async function complete(t: TestApp, sessionId: string, etag: string, headers: Record<string, string> = owner(t)) {
  const res = await t.app.inject({ method: 'POST', url: `/v1/sessions/${sessionId}/complete`, headers: { ...headers, 'if-match': etag } });
  if (res.statusCode !== 200) throw new Error(`complete failed: ${res.statusCode} ${res.body}`);
  return res;
}

/**
 * Every row of every table in every schema of the database, as text: `pg_dump --data-only`. A
 * pg_dump older than the server refuses it (the embedded server of a run without DATABASE_URL is
 * newer than Debian's client): then every table the catalog lists is read through SQL instead.
 */
export async function dumpData(url: string, pool: Pick<TestDatabase, 'pool'>['pool']): Promise<string> {
  try {
    const { stdout } = await execFileAsync(PG_DUMP, ['--data-only', '--no-owner', `--dbname=${url}`], { maxBuffer: 256 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    if (!/server version mismatch/.test(String((error as { stderr?: string }).stderr))) throw error;
  }
  const { rows: tables } = await pool.query<{ name: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'`,
  );
  const parts: string[] = [];
  for (const { name } of tables) {
    const { rows } = await pool.query<{ row: string }>(`SELECT t::text AS row FROM ${name} t`);
    parts.push(`-- ${name}`, ...rows.map((r) => r.row));
  }
  return parts.join('\n');
}
