import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { components } from '../../src/client/openapi.js';
import type { TestApp } from '../support/app.js';
import { interactive } from '../support/sessions.js';

/** Calls shared by the trial tests. */

/** What POST /v1/trial/sessions answers, as the contract document says. */
export type TrialCreated = components['schemas']['TrialCreateSessionResponse'];

export interface TrialCall {
  /** The management credential; omitted: no Authorization header at all. */
  credential?: string;
  /** The socket's peer address the request comes from; omitted: a new client's. */
  from?: string;
  headers?: Record<string, string>;
  interaction?: object;
}

export const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });

let clients = 0;
/** A client address no other call of this process used (198.18.0.0/15 is for benchmarking). */
export const newClient = (): string => `198.18.${(clients >> 8) & 255}.${clients++ & 255}`;

/** POST /v1/trial/sessions as the client at `from` would send it. */
export function postTrial(t: TestApp, call: TrialCall = {}): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url: '/v1/trial/sessions',
    remoteAddress: call.from ?? newClient(),
    headers: { ...(call.credential === undefined ? {} : bearer(call.credential)), ...call.headers },
    payload: { interaction: call.interaction ?? interactive() },
  });
}

/** A created trial Session (201 asserted), with its link token. */
async function created(res: LightMyRequestResponse): Promise<TrialCreated & { token: string; etag: string }> {
  expect(res.statusCode, res.body).toBe(201);
  const body = res.json<TrialCreated>();
  return { ...body, token: body.human_url.split('/s/')[1]!, etag: res.headers.etag as string };
}

/** A new trial from client `from`: its first Session and the management credential. */
export async function startTrial(t: TestApp, from?: string) {
  const first = await created(await postTrial(t, { from }));
  return { ...first, credential: first.management_credential! };
}

/** One more Session in the trial. */
export async function addSession(t: TestApp, credential: string, from?: string) {
  return created(await postTrial(t, { credential, from }));
}

export function readTrial(t: TestApp, credential: string | undefined, id: string, headers: Record<string, string> = {}) {
  return t.app.inject({ url: `/v1/trial/sessions/${id}`, headers: { ...(credential === undefined ? {} : bearer(credential)), ...headers } });
}

/** Asserts a 429 RATE_LIMITED whose Retry-After is exactly `seconds`. */
export function expectRateLimited(res: LightMyRequestResponse, seconds: number): void {
  expect(res.statusCode, res.body).toBe(429);
  expect(res.json<{ error: { code: string } }>().error.code).toBe('RATE_LIMITED');
  expect(res.headers['retry-after']).toBe(String(seconds));
}
