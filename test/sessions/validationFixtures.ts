import { expect } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import type { Interaction } from '../../src/sessions/interaction.js';
import { surfaceMeasure } from '../../src/sessions/surfaceMeasure.js';
import { parseCreateInteraction, parsePublishInteraction } from '../../src/sessions/validation/interaction.js';

/** Small valid interactions to vary one rule at a time, and the assertions on refusals. */

export type Json = Record<string, unknown>;

export function interactive(overrides: Json = {}): Json {
  return {
    mode: 'interactive',
    title: 'Review',
    source: { kind: 'svc_surface', components: [{ type: 'text', text: 'Hello' }] },
    actions: [{ id: 'submit', label: 'Submit' }],
    ...overrides,
  };
}

export function surface(...components: unknown[]): Json {
  return interactive({ source: { kind: 'svc_surface', components } });
}

export function withField(overrides: Json = {}): Json {
  return surface({ type: 'field', name: 'answer', label: 'Answer', schema: { type: 'string' }, ...overrides });
}

export function display(data: unknown = { status: 'ok' }, overrides: Json = {}): Json {
  return { mode: 'display', title: 'Status', source: { kind: 'data', data }, ...overrides };
}

export const create = (interaction: unknown) => parseCreateInteraction({ interaction });
export const publish = (interaction: unknown) => parsePublishInteraction({ interaction });

export function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  return expect.unreachable('the input was accepted');
}

/** Refused with this code, and the message opens with exactly this path. */
export function expectRefused(run: () => unknown, code: string, path: string, status = code === 'PAYLOAD_TOO_LARGE' ? 413 : 400): ApiError {
  const error = refusal(run);
  expect({ status: error.status, code: error.code }).toEqual({ status, code });
  expect(error.message.startsWith(`${path} `) || error.message.startsWith(`${path}:`), `"${error.message}" should name ${path}`).toBe(true);
  return error;
}

export const chars = (count: number, char = 'a'): string => char.repeat(count);

/** An interactive interaction (already in stored form) that measures exactly `bytes`, padded with ASCII. */
export function measuring(bytes: number): Record<string, unknown> {
  const texts = Array.from({ length: 40 }, () => ({ type: 'text', text: chars(4000) }));
  const shape = (count: number, last: number, description: number) =>
    interactive({
      description: chars(description),
      source: { kind: 'svc_surface', components: [...texts.slice(0, count), { type: 'text', text: chars(last) }] },
      response_policy: 'first',
    });
  const measure = (interaction: Record<string, unknown>) => surfaceMeasure(interaction as unknown as Interaction);
  let count = 0;
  while (measure(shape(count + 1, 1, 0)) <= bytes) count++;
  const short = bytes - measure(shape(count, 1, 0));
  const last = 1 + Math.min(short, 3999);
  const interaction = shape(count, last, short - (last - 1));
  expect(measure(interaction)).toBe(bytes);
  return interaction;
}
