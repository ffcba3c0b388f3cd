import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/lifecycle.js';
import { createSession, interactive, owner } from '../support/sessions.js';
import { statementsOf } from '../support/statements.js';

/**
 * What the owner's commands on a Session cost the database, in statements (each a round trip):
 * optimistic, as the event store commits a command whose only write is its append (a read outside
 * a transaction, then the append autocommitted; nothing to read for a new Session).
 */

const { t } = useTestApp();

describe("an owner's command", () => {
  it('creates a Session in one statement: its events with their data key row, its view and its feed row', async () => {
    const sent = await statementsOf(t.ctx.store.pool, () => createSession(t));
    expect(sent).toEqual([expect.stringMatching(/^svc_append\+stream_key\+session_views/)]);
  });

  it('revises a Session in two: its read, then its append with its view', async () => {
    const session = await createSession(t);
    const sent = await statementsOf(t.ctx.store.pool, async () => {
      const res = await t.app.inject({
        method: 'PATCH',
        url: `/v1/sessions/${session.id}`,
        headers: { ...owner(t), 'if-match': session.etag },
        payload: { interaction: interactive({ title: 'Approve the revised refund?' }) },
      });
      expect(res.statusCode, res.body).toBe(200);
    });
    expect(sent).toEqual(['svc_read_streams', expect.stringMatching(/^svc_append\+session_views/)]);
  });
});
