import { expect, it } from 'vitest';
import { WAIT_LIMITS } from '../../src/waits/index.js';
import { bearer, developer, useMailbox } from '../accounts/support.js';
import { listeningApp } from '../client/support.js';
import { useTestApp } from '../support/lifecycle.js';
import { interactive, owner } from '../support/sessions.js';
import { postTrial } from '../trials/support.js';
import { answer } from './support.js';

/**
 * The caps of a workspace with the service's own limits: a workspace anyone can open (a developer
 * account, a trial) takes a small fraction of the process's places, a trial fewer; the operator's
 * workspace is capped only by the process.
 */

const mailbox = useMailbox();
const { t } = useTestApp(async () => {
  const options = await listeningApp();
  return { ...options, config: { ...options.config, smtpUrl: mailbox.url } };
});

async function refusedCount(): Promise<number> {
  const metric = await t.ctx.metrics.registry.getSingleMetric('svc_waits_refused_total')!.get();
  return metric.values.find((v) => v.labels.reason === 'workspace_cap')?.value ?? 0;
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 3_000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

const heldGet = (path: string, headers: Record<string, string>, etag: string) => t.app.inject({ url: path, headers: { ...headers, 'if-none-match': etag, prefer: 'wait=55' } });

/** `count` GETs of a Session held on its ETag, through inject (each its own request), once all are held. */
async function holdMany(path: string, headers: Record<string, string>, etag: string, count: number) {
  const before = t.app.waits.held;
  const held = Array.from({ length: count }, () => heldGet(path, headers, etag));
  await until(() => t.app.waits.held === before + count);
  return held;
}

/** `count` held GETs, and the one past them (answered at once when refused), with how many refusals it counted. */
async function holdPast(path: string, headers: Record<string, string>, etag: string, count: number) {
  const held = await holdMany(path, headers, etag, count);
  const refusals = await refusedCount();
  const past = await heldGet(path, headers, etag);
  return { held, past, refused: (await refusedCount()) - refusals };
}

async function createdBy(headers: Record<string, string>): Promise<{ id: string; human_url: string; etag: string }> {
  const res = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers, payload: { interaction: interactive() } });
  expect(res.statusCode, res.body).toBe(201);
  return { ...res.json<{ id: string; human_url: string }>(), etag: res.headers.etag as string };
}

it('a workspace anyone can open takes a small fraction of the process: filling it takes at least 20 developer accounts, or 500 trials', () => {
  expect(WAIT_LIMITS.perWorkspace.developer * 20).toBeLessThanOrEqual(WAIT_LIMITS.perProcess);
  expect(WAIT_LIMITS.perWorkspace.trial * 500).toBeLessThanOrEqual(WAIT_LIMITS.perProcess);
  expect(WAIT_LIMITS.perWorkspace.trial).toBeLessThan(WAIT_LIMITS.perWorkspace.developer);
});

it(`a trial holds ${WAIT_LIMITS.perWorkspace.trial} requests; the next is answered at once, as without Prefer`, async () => {
  const trial = (await postTrial(t)).json<{ id: string; human_url: string; management_credential: string }>();
  const auth = bearer(trial.management_credential);
  const etag = (await t.app.inject({ url: `/v1/trial/sessions/${trial.id}`, headers: auth })).headers.etag as string;
  const { held, past, refused } = await holdPast(`/v1/trial/sessions/${trial.id}`, auth, etag, WAIT_LIMITS.perWorkspace.trial);
  expect([past.statusCode, past.headers['preference-applied'], refused]).toEqual([200, undefined, 1]);
  expect((await answer(t.ctx.config.publicOrigin, trial.human_url)).status).toBe(200);
  for (const answered of await Promise.all(held)) expect(answered.statusCode).toBe(200);
});

it(`a developer account holds ${WAIT_LIMITS.perWorkspace.developer} requests, the operator more`, async () => {
  const { key } = await developer(t, mailbox, 'many-waits@example.com');
  const mine = await createdBy(bearer(key));
  const developers = await holdPast(`/v1/sessions/${mine.id}`, bearer(key), mine.etag, WAIT_LIMITS.perWorkspace.developer);
  expect([developers.past.statusCode, developers.past.headers['preference-applied'], developers.refused]).toEqual([304, undefined, 1]);

  // The operator's workspace is not held to a developer account's cap.
  const operators = await createdBy(owner(t));
  const refusals = await refusedCount();
  const operator = await holdMany(`/v1/sessions/${operators.id}`, owner(t), operators.etag, WAIT_LIMITS.perWorkspace.developer + 1);
  expect(await refusedCount()).toBe(refusals);

  for (const { id, etag } of [mine, operators]) {
    const headers = id === mine.id ? bearer(key) : owner(t);
    expect((await t.app.inject({ method: 'POST', url: `/v1/sessions/${id}/complete`, headers: { ...headers, 'if-match': etag } })).statusCode).toBe(200);
  }
  for (const answered of await Promise.all([...developers.held, ...operator])) expect(answered.statusCode).toBe(200);
});
