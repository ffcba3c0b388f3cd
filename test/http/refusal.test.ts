import { describe, expect, it } from 'vitest';
import { capabilities } from '../../src/capabilities.js';
import { ApiError } from '../../src/http/errors.js';
import { assertOneMeaning, refusalError, refusalStatus, type RefusalTable } from '../../src/http/refusal.js';

type Sample = { refused: 'plain' } | { refused: 'limited'; retryAfterSeconds: number } | { refused: 'named'; rule: string };

const TABLE: RefusalTable<Sample> = {
  plain: { status: 404, code: 'NOT_FOUND', message: 'Not here.' },
  limited: { status: 429, code: 'RATE_LIMITED', message: 'Later.', reason: 'some_limit' },
  named: { status: 400, code: 'INVALID_SCHEMA', message: ({ rule }) => `Broke ${rule}.`, reason: ({ rule }) => rule },
};

describe('a refusal table', () => {
  it('answers each refusal with its status, code and message, and nothing else', () => {
    expect(refusalStatus(TABLE, { refused: 'plain' })).toEqual({ status: 404, code: 'NOT_FOUND', message: 'Not here.', headers: {} });
  });

  it('says when a limit admits one more (Retry-After) and names it in reason', () => {
    expect(refusalStatus(TABLE, { refused: 'limited', retryAfterSeconds: 7 })).toEqual({
      status: 429,
      code: 'RATE_LIMITED',
      message: 'Later.',
      reason: 'some_limit',
      headers: { 'retry-after': '7' },
    });
  });

  it("words a message and a reason from the refusal's own fields", () => {
    const error = refusalError(TABLE, { refused: 'named', rule: 'port' });
    expect(error).toBeInstanceOf(ApiError);
    expect([error.status, error.code, error.message, error.reason]).toEqual([400, 'INVALID_SCHEMA', 'Broke port.', 'port']);
  });
});

describe("the service's refusals", () => {
  it('refuse at start a name two capabilities answer differently, and take one answer shared', () => {
    expect(() => assertOneMeaning([{ plain: TABLE.plain }, { plain: { ...TABLE.plain } }])).toThrow('The refusal plain is declared by two capabilities.');
    expect(() => assertOneMeaning([{ plain: TABLE.plain }, { plain: TABLE.plain }])).not.toThrow();
  });

  it('mean one thing across every capability of the list', () => {
    expect(() => assertOneMeaning(capabilities.map((c) => c.refusals ?? {}))).not.toThrow();
    expect(capabilities.filter((c) => c.refusals).length).toBeGreaterThan(5);
  });
});
