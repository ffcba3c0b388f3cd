import fc from 'fast-check';
import { expect, it } from 'vitest';
import { useTestApp } from '../test/support/lifecycle.js';
import { owner } from '../test/support/sessions.js';

/**
 * Property: whatever a client sends as GET /v1/events's `after`, the feed answers 200 or 400
 * INVALID_SCHEMA, never a 5xx: arbitrary text, and cursors of the feed's own shape whose numbers
 * are past what the log can hold (a version past 2^31 - 1, a transaction past 2^64 - 1).
 */

const { t } = useTestApp();

const VERSION_MAX = 2n ** 31n - 1n;
const TRANSACTION_MAX = 2n ** 64n - 1n;

async function feedAfter(after: string): Promise<{ status: number; code: string | undefined }> {
  const res = await t.app.inject({ url: `/v1/events?after=${encodeURIComponent(after)}`, headers: owner(t) });
  return { status: res.statusCode, code: res.statusCode === 200 ? undefined : res.json<{ error: { code: string } }>().error.code };
}

const around = (limit: bigint, digits: number) =>
  fc.oneof(fc.constantFrom(limit - 1n, limit, limit + 1n, 10n ** BigInt(digits) - 1n, 0n), fc.bigInt({ min: 0n, max: 10n ** BigInt(digits) - 1n }));

it('arbitrary text as after answers 200 or 400, never 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(fc.string({ unit: 'binary', maxLength: 220 }), fc.base64String({ maxLength: 60 }).map((s) => s.replace(/=+$/, ''))), async (after) => {
      const { status, code } = await feedAfter(after);
      expect([200, 400], `${JSON.stringify(after)}: ${status}`).toContain(status);
      if (status === 400) expect(code).toBe('INVALID_SCHEMA');
    }),
    { numRuns: 300 },
  );
});

it("a cursor of the feed's shape is listed from when its numbers are in range, and refused with 400 when one is past it", async () => {
  expect(await feedAfter('MS4yMTQ3NDgzNjQ4Lg')).toEqual({ status: 400, code: 'INVALID_SCHEMA' });
  await fc.assert(
    fc.asyncProperty(around(TRANSACTION_MAX, 20), around(VERSION_MAX, 10), fc.stringMatching(/^[A-Za-z0-9_]{0,64}$/), async (transaction, version, sessionId) => {
      const after = Buffer.from(`${transaction}.${version}.${sessionId}`, 'utf8').toString('base64url');
      const inRange = transaction <= TRANSACTION_MAX && version <= VERSION_MAX;
      expect(await feedAfter(after)).toEqual(inRange ? { status: 200, code: undefined } : { status: 400, code: 'INVALID_SCHEMA' });
    }),
    { numRuns: 300 },
  );
});
