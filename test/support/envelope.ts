import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { ErrorCode } from '../../src/http/errors.js';

/** Asserts an error response: its status, the envelope's code, a message, and the request id of the x-request-id header. */
export function expectError(res: LightMyRequestResponse, status: number, code: ErrorCode): void {
  expect(res.statusCode, res.body).toBe(status);
  const { error } = res.json<{ error: { code: string; message: string; request_id: string } }>();
  expect(error.code).toBe(code);
  expect(error.request_id).toBe(res.headers['x-request-id']);
  expect(error.message.length).toBeGreaterThan(0);
}

/** Asserts the error envelope, exactly, and its request id matching the x-request-id header. */
export function expectEnvelope(res: LightMyRequestResponse, status: number, code: ErrorCode): void {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['cache-control']).toBe('no-store, no-transform');
  const body = res.json() as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(['error']);
  const { code: actual, message, request_id, reason, ...rest } = body.error;
  expect(rest).toEqual({});
  expect(actual).toBe(code);
  expect(typeof message).toBe('string');
  expect((message as string).length).toBeGreaterThan(0);
  expect(typeof request_id).toBe('string');
  expect((request_id as string).length).toBeGreaterThan(0);
  expect(res.headers['x-request-id']).toBe(request_id);
  if (reason !== undefined) expect(reason).toMatch(/^[a-z_]{1,40}$/);
  // Nothing of fastify's or Node's own shapes: no stack, no statusCode, no "Error:" text.
  expect(res.body).not.toMatch(/statusCode|stack|FST_| {4}at |Error:/);
}
