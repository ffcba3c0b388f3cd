/** Every statement of the quotas capability (migrations/ holds its table). */

import { prepared } from '../../eventstore/index.js';

export const INSERT_USE = `INSERT INTO quota_uses (workspace_id, use, used_at, seq) VALUES ($1, $2, $3, $4)`;

/**
 * For each quota over a kind of use ($3 its name, $4 its limit): the time of the workspace's
 * limit-th newest use of that kind, or null with fewer. The use that must leave a window before
 * it admits one more; each is one walk down the table's key, at most `limit` entries long,
 * however many uses the workspace made before.
 */
export const LIMIT_EDGES = prepared(
  'quota_limit_edges',
  `
SELECT w.quota, (SELECT q.used_at FROM quota_uses q
                  WHERE q.workspace_id = $1 AND q.use = $2
                  ORDER BY q.used_at DESC OFFSET w.quota_limit - 1 LIMIT 1) AS edge
  FROM unnest($3::text[], $4::integer[]) AS w(quota, quota_limit)`,
);
