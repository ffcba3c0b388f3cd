import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { expect, it } from 'vitest';
import { NOT_FOUND_PAGE } from '../../src/human/index.js';
import { DeliveryDispatcher } from '../../src/webhooks/index.js';
import type { TestApp } from '../support/app.js';
import { createSession } from '../support/sessions.js';
import { postForm } from '../human/form-post.js';
import { deliveriesTo, registerVerified, useReceiver, useWebhookTest } from '../webhooks/support.js';
import { readTrial, startTrial } from './support.js';

/**
 * A trial Session answered through its link: read back by the trial with a receipt for the
 * trial's workspace and no return binding, sent to no webhook; its link accepts nothing after
 * its action window, while its result stays readable until result_available_until.
 */

const receiver = useReceiver();
const { t, clock } = useWebhookTest();

let answers = 0;
function answer(app: TestApp, token: string, amount = '42') {
  const body = new URLSearchParams([
    ['client_event_id', `cev_trial_answer_${String(++answers).padStart(4, '0')}`],
    ['surface_revision', '1'],
    ['action_id', 'approve'],
    ['data.amount', amount],
  ]);
  return postForm(app, token, body.toString());
}

interface TrialResponseBody {
  status: string;
  responses: Array<{ event_id: string; action_id: string; data: object; receipt: string }>;
  trial: { workspace_id: string };
}

it('answers through the link: readable by the trial, receipt for its workspace without return binding, no webhook', async () => {
  await registerVerified(t, receiver);
  const trial = await startTrial(t);
  const res = await answer(t, trial.token);
  expect(res.statusCode, res.body).toBe(200);

  const read = await readTrial(t, trial.credential, trial.id);
  expect(read.statusCode).toBe(200);
  expect(read.headers.etag).toBe('"1.1"');
  const body = read.json<TrialResponseBody>();
  expect(body.status).toBe('responded');
  const [response] = body.responses;
  expect(response).toMatchObject({ action_id: 'approve', data: { amount: 42 } });

  const keys = (await t.app.inject({ url: '/.well-known/svc-receipt-keys.json' })).json<JSONWebKeySet>();
  expect(decodeProtectedHeader(response!.receipt)).toMatchObject({ alg: 'EdDSA', typ: 'svc-receipt+jwt' });
  const { payload } = await jwtVerify(response!.receipt, createLocalJWKSet(keys), {
    issuer: t.ctx.config.publicOrigin,
    audience: trial.workspace_id,
    typ: 'svc-receipt+jwt',
    currentDate: clock.now(),
  });
  expect(payload).toMatchObject({ workspace_id: trial.workspace_id, session_id: trial.id, event_id: response!.event_id, return_binding: null });
  await expect(jwtVerify(response!.receipt, createLocalJWKSet(keys), { audience: 'wks_operator', currentDate: clock.now() })).rejects.toThrow();

  // The operator's verified endpoint receives the operator's own answers, and nothing of the trial's.
  const operatorSession = await createSession(t);
  expect((await answer(t, operatorSession.token)).statusCode).toBe(200);
  const { rows } = await t.ctx.store.pool.query<{ session_id: string }>(`SELECT session_id FROM webhook_deliveries`);
  expect(rows.map((r) => r.session_id)).toEqual([operatorSession.id]);
  await new DeliveryDispatcher(t.ctx).drain();
  const delivered = deliveriesTo(receiver).map((r) => JSON.parse(r.body) as { session_id: string });
  expect(delivered.map((d) => d.session_id)).toEqual([operatorSession.id]);
});

it('the link accepts nothing from action_expires_at on; the result stays readable until result_available_until', async () => {
  const trial = await startTrial(t);
  const late = await startTrial(t);
  const actionEnds = Date.parse(trial.action_expires_at);
  const resultEnds = Date.parse(trial.result_available_until);
  expect(resultEnds - actionEnds).toBe(24 * 3_600_000);

  clock.set(new Date(actionEnds - 1));
  expect((await answer(t, trial.token)).statusCode).toBe(200);

  clock.set(new Date(actionEnds));
  for (const token of [trial.token, late.token]) {
    const refused = await answer(t, token);
    expect(refused.statusCode).toBe(404);
    expect(refused.body).toBe(NOT_FOUND_PAGE);
    const page = await t.app.inject({ url: `/s/${token}` });
    expect(page.statusCode).toBe(404);
    expect(page.body).toBe(NOT_FOUND_PAGE);
  }
  // What was accepted in time is read as accepted; what was not answered stays active, unanswered.
  clock.set(new Date(resultEnds - 1));
  const answered = await readTrial(t, trial.credential, trial.id);
  expect(answered.statusCode).toBe(200);
  expect(answered.json<TrialResponseBody>().responses).toHaveLength(1);
  const unanswered = await readTrial(t, late.credential, late.id);
  expect(unanswered.json<TrialResponseBody>()).toMatchObject({ status: 'active', responses: [] });

  clock.set(new Date(resultEnds));
  const gone = await readTrial(t, trial.credential, trial.id);
  expect(gone.statusCode).toBe(404);
  expect(gone.json<{ error: { code: string } }>().error.code).toBe('NOT_FOUND');
});
