import { request } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { eraseSession } from '../../src/purge/index.js';
import { WAIT_LIMITS } from '../../src/waits/index.js';
import { listeningApp } from '../client/support.js';
import { useTestApp } from '../support/lifecycle.js';
import { createSession, owner } from '../support/sessions.js';
import { postTrial } from '../trials/support.js';
import { answer, heldGet } from './support.js';

/** The caps on held requests, a client that goes away, and a Session purged during a wait. */

const { t } = useTestApp(listeningApp);
const url = (path: string) => `${t.ctx.config.publicOrigin}${path}`;
const waiters = () => t.app.waits;

afterEach(() => {
  waiters().limits = WAIT_LIMITS;
});

async function refusedCount(reason: string): Promise<number> {
  const metric = await t.ctx.metrics.registry.getSingleMetric('svc_waits_refused_total')!.get();
  return metric.values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

it('past the cap of a workspace, or of the process, a request is answered at once without waiting, and the refusal is counted', async () => {
  waiters().limits = { perProcess: 3, perWorkspace: { operator: 2, developer: 2, trial: 2 } };
  const a = await createSession(t);
  const b = await createSession(t);
  const holding = [heldGet(url(`/v1/sessions/${a.id}`), owner(t), a.etag, 55), heldGet(url(`/v1/sessions/${b.id}`), owner(t), b.etag, 55)];
  await until(() => waiters().held === 2);

  const workspaceRefusals = await refusedCount('workspace_cap');
  const third = await heldGet(url(`/v1/sessions/${a.id}`), owner(t), a.etag, 55);
  expect([third.status, third.headers.get('preference-applied')]).toEqual([304, null]);
  expect(await refusedCount('workspace_cap')).toBe(workspaceRefusals + 1);

  // A trial's workspace has room, until the process is full.
  const trial = (await postTrial(t)).json<{ id: string; human_url: string; management_credential: string }>();
  const trialAuth = { authorization: `Bearer ${trial.management_credential}` };
  const trialEtag = (await fetch(url(`/v1/trial/sessions/${trial.id}`), { headers: trialAuth })).headers.get('etag')!;
  holding.push(heldGet(url(`/v1/trial/sessions/${trial.id}`), trialAuth, trialEtag, 55));
  await until(() => waiters().held === 3);
  const processRefusals = await refusedCount('process_cap');
  const past = await heldGet(url(`/v1/trial/sessions/${trial.id}`), trialAuth, trialEtag, 55);
  // Answered as without Prefer: the trial route's 200.
  expect([past.status, past.headers.get('preference-applied')]).toEqual([200, null]);
  expect(await refusedCount('process_cap')).toBe(processRefusals + 1);

  // The held ones end with their Sessions' changes.
  await fetch(url(`/v1/sessions/${a.id}/complete`), { method: 'POST', headers: { ...owner(t), 'if-match': a.etag } });
  await fetch(url(`/v1/sessions/${b.id}/complete`), { method: 'POST', headers: { ...owner(t), 'if-match': b.etag } });
  expect((await holding[0]!).status).toBe(200);
  expect((await holding[1]!).status).toBe(200);
  expect((await answer(t.ctx.config.publicOrigin, trial.human_url)).status).toBe(200);
  expect((await holding[2]!).status).toBe(200);
});

it('a client that goes away frees its place at once', async () => {
  const { id, etag } = await createSession(t);
  const before = waiters().held;
  const requests = Array.from({ length: 20 }, () => {
    const req = request(url(`/v1/sessions/${id}`), { headers: { ...owner(t), 'if-none-match': etag, prefer: 'wait=55' } });
    req.on('error', () => undefined);
    req.end();
    return req;
  });
  await until(() => waiters().held === before + 20);
  for (const req of requests) req.destroy();
  await until(() => waiters().held === before);
});

it('a Session purged during a wait ends it with the answer a fresh GET gives: 404', async () => {
  const { id, etag } = await createSession(t);
  const held = heldGet(url(`/v1/sessions/${id}`), owner(t), etag, 55);
  await until(() => waiters().held === 1);
  await eraseSession(t.ctx, id);
  const answer = await held;
  expect(answer.status).toBe(404);
  expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('SESSION_NOT_FOUND');
});

it('a held request is left out of the request duration histogram; one answered at once is in it', async () => {
  const { id, etag } = await createSession(t);
  const observed = async () => {
    const metric = await t.ctx.metrics.registry.getSingleMetric('svc_http_request_duration_seconds')!.get();
    return metric.values.filter((v) => (v as { metricName?: string }).metricName?.endsWith('_count') && v.labels.route === '/v1/sessions/:id').reduce((sum, v) => sum + v.value, 0);
  };
  const before = await observed();
  expect((await heldGet(url(`/v1/sessions/${id}`), owner(t), etag, 1)).status).toBe(304);
  expect(await observed()).toBe(before);
  expect((await fetch(url(`/v1/sessions/${id}`), { headers: { ...owner(t), 'if-none-match': etag } })).status).toBe(304);
  expect(await observed()).toBe(before + 1);
});
