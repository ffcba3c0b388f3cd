import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { expect, it } from 'vitest';
import { verify } from '../../eventstore/index.js';
import { HOUR, ManualClock } from '../../src/clock.js';
import { parseSubmission } from '../../src/human/index.js';
import { PurgeWorker } from '../../src/purge/index.js';
import { canonicalJson, sha256Hex } from '../../eventstore/index.js';
import { useTestApp } from '../support/lifecycle.js';
import { createSession, owner } from '../support/sessions.js';
import { postForm } from '../human/form-post.js';
import { registerVerified, useReceiver } from '../webhooks/support.js';
import { dumpData, purgeCounts } from './support.js';

/**
 * Nothing of a purged Session's content survives in the clear, anywhere in the database: every
 * piece of it carries a marker, and a data-only dump of every table of every schema holds none of
 * them after the purge (and all of them before: the scan can fail). Nor does any plain digest of
 * content that could confirm a guess.
 */

const receiver = useReceiver();
const T0 = Date.parse('2026-05-01T00:00:00.000Z');
const clock = new ManualClock(new Date(T0));
const { db, t } = useTestApp({ clock, config: { webhookTestEgress: 'loopback' } });

const mark = (what: string) => `mark${what}${randomBytes(8).toString('hex')}`;

it('a purged Session leaves no marker and no plain digest of its content in a dump of the whole database; the chain verifies', async () => {
  const markers = {
    title: mark('title'),
    description: mark('description'),
    heading: mark('heading'),
    text: mark('text'),
    recordLabel: mark('recordlabel'),
    recordKey: mark('recordkey'),
    recordValue: mark('recordvalue'),
    fieldLabel: mark('fieldlabel'),
    fieldDescription: mark('fielddescription'),
    optionLabel: mark('optionlabel'),
    proposed: mark('proposed'),
    actionLabel: mark('actionlabel'),
    submitted: mark('submitted'),
    revisionTitle: mark('revisiontitle'),
    idempotencyKey: mark('idempotencykey'),
  };
  const interaction = (title: string) => ({
    mode: 'interactive',
    title,
    description: markers.description,
    source: {
      kind: 'svc_surface',
      components: [
        { type: 'heading', text: markers.heading },
        { type: 'text', text: markers.text },
        { type: 'record', label: markers.recordLabel, fields: { [markers.recordKey]: markers.recordValue } },
        { type: 'field', name: 'note', label: markers.fieldLabel, description: markers.fieldDescription, schema: { type: 'string', maxLength: 200 } },
        { type: 'field', name: 'choice', label: 'Choice', schema: { type: 'string', enum: ['a', 'b'] }, option_labels: { a: markers.optionLabel } },
        { type: 'field', name: 'proposal', label: 'Proposal', schema: { type: 'string' }, value: markers.proposed },
      ],
    },
    actions: [{ id: 'approve', label: markers.actionLabel }],
  });

  await registerVerified(t, receiver);
  const session = await createSession(t, interaction(markers.title));
  const form = new URLSearchParams({ client_event_id: `plaintext-${randomBytes(8).toString('hex')}`, surface_revision: '1', action_id: 'approve' });
  form.append('data.note', markers.submitted);
  form.append('data.choice', 'a');
  form.append('data.proposal', markers.proposed);
  const answered = await postForm(t, session.token, form.toString());
  expect(answered.statusCode, answered.body).toBe(200);
  // A revision published with an Idempotency-Key: its mark holds a digest of the request.
  const patchBody = { interaction: interaction(markers.revisionTitle) };
  const patched = await t.app.inject({
    method: 'PATCH',
    url: `/v1/sessions/${session.id}`,
    headers: owner(t, { 'if-match': '"1.1"', 'idempotency-key': markers.idempotencyKey }),
    payload: patchBody,
  });
  expect(patched.statusCode, patched.body).toBe(200);

  const [response] = patched.json<{ responses: Array<{ receipt: string }> }>().responses;
  const claims = decodeJwt(response!.receipt) as { input_sha256: string; revision_sha256: string };
  const { rows: jobs } = await db.pool.query(`SELECT status FROM webhook_deliveries WHERE session_id = $1`, [session.id]);
  expect(jobs).toEqual([{ status: 'pending' }]);

  const digests = {
    humanRequest: sha256Hex(canonicalJson({ surface_revision: 1, action_id: 'approve', values: parseSubmission(form.toString()).values })),
    idempotencyRequest: sha256Hex(canonicalJson({ body: patchBody, if_match: '"1.1"' })),
    receiptInput: claims.input_sha256,
    receiptRevision: claims.revision_sha256,
  };
  // The receipt too: its payload (base64url) holds labels, the summary and the input's hash.
  const secrets = [...Object.values(markers), ...Object.values(digests), response!.receipt];

  // Before the purge the content is served (the scan can find it) and is nowhere in the clear
  // either: the views are sealed with the Session's key as the log is (test/sessions/at-rest.test.ts).
  const served = (await t.app.inject({ method: 'GET', url: `/v1/sessions/${session.id}`, headers: owner(t) })).body;
  expect(secrets.filter((secret) => served.includes(secret)).length).toBeGreaterThan(0);
  const before = await dumpData(db.url, db.pool);
  expect(secrets.filter((secret) => before.includes(secret)), 'what the dump holds before the purge').toEqual([]);

  clock.set(new Date(T0 + 720 * HOUR + 720 * HOUR));
  const purged = await new PurgeWorker(t.ctx).drain();
  expect(purged).toEqual([{ sessionId: session.id, event: { type: 'session.purged', at: clock.now().toISOString(), reason: 'retention' }, deliveriesEnded: 1 }]);

  const after = await dumpData(db.url, db.pool);
  expect(after).toContain(session.id); // the dump is the database's: ids stay
  expect(secrets.filter((secret) => after.includes(secret)), 'what survives the purge').toEqual([]);
  expect(await verify(db.pool)).toEqual([]);
  expect(await purgeCounts(db, [session.id])).toEqual(new Map([[session.id, 1]]));
  // The queued delivery ended unsent, in its own stream; nothing was sent.
  const { rows: ended } = await db.pool.query(
    `SELECT e.data::jsonb->>'outcome' AS outcome FROM events e
      WHERE e.type = 'delivery.ended' AND e.stream_id IN (SELECT stream_id FROM events WHERE type = 'delivery.queued' AND data::jsonb->>'session_id' = $1)`,
    [session.id],
  );
  expect(ended).toEqual([{ outcome: 'endpoint_unavailable' }]);
  expect(receiver.requests).toEqual([]);
});
