import { expect, it } from 'vitest';
import { FEED_PAGE } from '../../src/feed/sql.js';
import { useTestDatabase } from '../support/lifecycle.js';

/**
 * A feed page is ordered by transaction as a number. Transaction ids are chosen here, below every
 * real one, so that two of them differ in their count of digits, as the cluster's own ids do once
 * they pass a power of ten: ordered as text, 10 came before 9, and a cursor after 10 passed 9 by.
 */

const db = useTestDatabase();

it('lists transaction 9 before transaction 10, and the page after 9 starts at 10', async () => {
  await db.pool.query(
    `INSERT INTO session_feed (workspace_id, transaction_id, session_id, stream_version)
     VALUES ('wks_order', '10', 'ses_ten', 1), ('wks_order', '9', 'ses_nine', 1)`,
  );
  const page = async (after: [string, string, number]) =>
    (await db.pool.query<{ transaction_id: string; session_id: string }>(FEED_PAGE, ['wks_order', ...after, 1])).rows.map((r) => [r.transaction_id, r.session_id]);
  expect(await page(['0', '', 0])).toEqual([['9', 'ses_nine']]);
  expect(await page(['9', 'ses_nine', 1])).toEqual([['10', 'ses_ten']]);
  expect(await page(['10', 'ses_ten', 1])).toEqual([]);
});
