import { readFile } from 'node:fs/promises';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from '../../eventstore/index.js';
import { buildReceiptClaims } from '../../src/receipts/claims.js';
import type { InteractiveInteraction } from '../../src/sessions/index.js';

/** The worked example of docs/receipts.md: its inputs, as the page states them. */
const interaction: InteractiveInteraction = {
  mode: 'interactive',
  title: 'Approve the refund for order 1042',
  source: {
    kind: 'svc_surface',
    components: [
      { type: 'record', fields: { order: '1042', customer: 'A. Example', total: 49.9 } },
      { type: 'field', name: 'amount', label: 'Refund amount', schema: { type: 'number', minimum: 0, maximum: 49.9 }, value: 49.9 },
      {
        type: 'field',
        name: 'reason',
        label: 'Reason',
        schema: { type: 'string', enum: ['damaged', 'late', 'other'] },
        option_labels: { damaged: 'Arrived damaged', late: 'Arrived late', other: 'Other' },
        required: true,
      },
    ],
  },
  actions: [
    { id: 'approve', label: 'Approve refund', intent: 'approve' },
    { id: 'reject', label: 'Reject', intent: 'reject' },
  ],
  response_policy: 'first',
};
const data = { amount: 49.9, reason: 'damaged' };

function block(doc: string, info: string): string {
  const match = doc.match(new RegExp('```' + info + '\\n([\\s\\S]*?)\\n```'));
  if (!match) throw new Error(`docs/receipts.md has no \`\`\`${info} block`);
  return match[1]!;
}

it('docs/receipts.md shows a receipt that jose verifies and that our claims rebuild byte for byte', async () => {
  const doc = await readFile(new URL('../../docs/receipts.md', import.meta.url), 'utf8');
  const receipt = block(doc, 'text receipt-example').trim();
  const keys = JSON.parse(block(doc, 'json receipt-example-keys')) as JSONWebKeySet;

  const { payload, protectedHeader } = await jwtVerify(receipt, createLocalJWKSet(keys), {
    issuer: 'https://handoff.example.com',
    audience: 'wks_operator',
    typ: 'svc-receipt+jwt',
    algorithms: ['EdDSA'],
    currentDate: new Date('2026-03-02T09:16:00Z'),
  });
  expect(protectedHeader.kid).toBe('example-2026-03');

  const rebuilt = buildReceiptClaims({
    origin: 'https://handoff.example.com',
    workspaceId: 'wks_operator',
    sessionId: 'ses_01KAZ3YV4Q8M5T2R7N6P1X9W0C',
    eventId: 'evt_01KAZ40H2J3K4M5N6P7Q8R9S0T',
    revision: 1,
    interaction,
    // As the page defines it: SHA-256 of the revision's canonical JSON.
    revisionSha256: sha256Hex(canonicalJson(interaction)),
    actionId: 'approve',
    data,
    linkHash: `${'c0ffee'.repeat(10)}c0ff`,
    acceptedAt: new Date('2026-03-02T09:15:27.481Z'),
    latestPurgeAt: new Date('2026-04-30T09:00:00.000Z'),
    returnChannel: 'webhook',
  });
  const signedBytes = Buffer.from(receipt.split('.')[1]!, 'base64url').toString('utf8');
  expect(signedBytes).toBe(canonicalJson(rebuilt));
  expect(payload).toEqual(rebuilt);
  // The page's canonical inputs are the ones the hashes cover.
  expect(doc).toContain(canonicalJson(interaction));
  expect(doc).toContain(canonicalJson(data));
});
