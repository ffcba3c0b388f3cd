import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ownerOf, requireOwner } from '../auth/index.js';
import { parseCheckpointText, parseNote, toBase64 } from '../client/note.js';
import { formatTlogProof } from '../client/bundle.js';
import { integerText } from '../http/ajv.js';
import { operation } from '../http/contract.js';
import { EDGE_REFUSALS, STORE_FAULTS } from '../http/edgeRefusals.js';
import { meaning, refusalError } from '../http/refusal.js';
import { AUTH_REFUSALS } from '../auth/index.js';
import { RECEIPT_REFUSALS } from '../receipts/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { ownedViewRow, RESPONSE_ACCEPTED, SESSION_COMPLETED, SESSION_REFUSALS } from '../sessions/index.js';
import { newestCheckpoint } from './checkpoint.js';
import { logOrigin, verifierKeys } from './logNote.js';
import { AUDIT_REFUSALS, type AuditRefusal } from './refusals.js';
import { consistencyProof, eventLeaf, inclusionProof, treeSize } from './tree.js';

/**
 * The log as a transparency log (docs/audit.md, "Proof of one decision"): its newest checkpoint
 * note, the inclusion proof of a Session's accepted response or resolution against it, and
 * consistency proofs between tree sizes, for the owner key and developer keys; and, public, the
 * verifier keys of its notes. A proof holds the caller's own event and only hashes of the rest.
 */

const refused = (refusal: AuditRefusal) => refusalError(AUDIT_REFUSALS, refusal);
const TEXT = 'text/plain; charset=utf-8';
/** The events a proof may be asked for: the decisions a workspace holds receipts and results of. */
const PROVABLE = new Set([RESPONSE_ACCEPTED, SESSION_COMPLETED]);

const textAnswer = (description: string, example: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' }, example } } });
const EXAMPLE_NOTE = 'svc.example/log\n1042\nfaHTBlpRwtg1SAMp7yT9WVtMcjnE5EDnCnD53O4o1tM=\n\n\u2014 svc.example/log 4p9Zw8uF0rG1n6ZbCtr0gWOtx/e0KkxcxZxnDKYd5vqnFS1NVdSGN2cCymXhCpSm9Dl2Xdy7BApzFCtVRZUsb0ckBgw=\n';

const getLogCheckpoint = operation({
  operationId: 'getLogCheckpoint',
  summary: "The log's newest checkpoint: a C2SP tlog-checkpoint signed note",
  answers: { 200: { description: 'The note: origin, tree size and RFC 6962 root hash, signed (Ed25519) by the key GET /.well-known/svc-log-verifier-keys.txt lists.' } },
  refuses: [AUTH_REFUSALS.owner_credential_required, AUDIT_REFUSALS.no_checkpoint_yet, ...STORE_FAULTS],
});

const getResponseProof = operation({
  operationId: 'getResponseProof',
  summary: "Proof that the log holds a Session's accepted response (or its resolution): a C2SP tlog-proof@v1 bundle",
  description:
    "The bundle's `extra` line is the leaf: the event's chain link text (docs/audit.md), whose event id the client checks; its `index` is the leaf's place in the tree, " +
    'then the inclusion path, then the newest checkpoint. Verify it offline with the verifier key (the client\'s verifyInclusion, or `svc audit verify-proof`).',
  answers: { 200: { description: 'The proof bundle.' } },
  refuses: [
    AUTH_REFUSALS.owner_credential_required,
    SESSION_REFUSALS.session_not_found,
    AUDIT_REFUSALS.logged_event_not_found,
    AUDIT_REFUSALS.no_checkpoint_yet,
    AUDIT_REFUSALS.not_checkpointed_yet,
    ...STORE_FAULTS,
  ],
});

const getLogConsistency = operation({
  operationId: 'getLogConsistency',
  summary: 'The RFC 6962 consistency proof between two sizes of the log\'s tree',
  answers: { 200: { description: 'The proof hashes (base64), from the first tree\'s side up; none when the sizes are equal.', example: { from: 1000, to: 1042, proof: ['faHTBlpRwtg1SAMp7yT9WVtMcjnE5EDnCnD53O4o1tM='] } } },
  refuses: [
    AUTH_REFUSALS.owner_credential_required,
    meaning(EDGE_REFUSALS.request_invalid, 'from or to is missing or not a whole number.'),
    AUDIT_REFUSALS.consistency_sizes,
    AUDIT_REFUSALS.tree_size_not_reached,
    ...STORE_FAULTS,
  ],
});

const getLogVerifierKeys = operation({
  operationId: 'getLogVerifierKeys',
  summary: "The verifier keys of the log's checkpoint notes, one a line (C2SP signed-note vkeys)",
  answers: { 200: { description: 'The active key first, then every retained one: the receipt keys, named by the log\'s origin.' } },
  refuses: [RECEIPT_REFUSALS.receipt_keys_unavailable],
});

/** A tree size in a query string: up to 15 digits (the route refuses what the log cannot prove). */
const treeSizeText = (description: string) => integerText({ type: 'string', pattern: '^[0-9]{1,15}$', description } as const, { minimum: 0, maximum: 10 ** 15 - 1 });

const consistencyQuery = {
  type: 'object',
  required: ['from', 'to'],
  additionalProperties: false,
  properties: {
    from: treeSizeText('The smaller tree size, at least 1 (a decimal integer).'),
    to: treeSizeText('The larger tree size, at least from (a decimal integer).'),
  },
} as const;

const consistencyResponse = {
  title: 'LogConsistencyResponse',
  type: 'object',
  required: ['from', 'to', 'proof'],
  additionalProperties: false,
  properties: {
    from: { type: 'integer' },
    to: { type: 'integer' },
    proof: { type: 'array', items: { type: 'string', pattern: '^[A-Za-z0-9+/]{43}=$' } },
  },
} as const;

const proofParams = {
  type: 'object',
  required: ['id', 'event_id'],
  properties: {
    id: { type: 'string', description: 'The Session ID.' },
    event_id: { type: 'string', description: "The Event ID (evt_…) of the Session's accepted response or of its completion." },
  },
} as const;

/** The newest checkpoint that carries a tree head, as its note and head. */
async function newestNote(ctx: ServiceContext) {
  const newest = await newestCheckpoint(ctx.store.pool);
  if (!newest?.note) throw refused({ refused: 'no_checkpoint_yet' });
  return { note: newest.note, head: parseCheckpointText(parseNote(newest.note).text) };
}

/** Public: GET /.well-known/svc-log-verifier-keys.txt. */
export async function logKeyRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  const body = ctx.receiptKeys && verifierKeys(logOrigin(ctx.config.publicOrigin), ctx.receiptKeys);
  app.get(
    '/.well-known/svc-log-verifier-keys.txt',
    { schema: { ...getLogVerifierKeys, security: [], response: { 200: textAnswer('The verifier keys.', 'svc.example/log+5b0b9f02+AQJmNWEf2WV8zK4OMpYgf1VuGpZMm5jxfwAgC4lKkF8w\n') } } },
    async (_request, reply) => {
      if (body === undefined) throw refusalError(RECEIPT_REFUSALS, { refused: 'receipt_keys_unavailable' });
      return reply.header('cache-control', 'no-store, no-transform').type(TEXT).send(body);
    },
  );
}

/** The owner routes: checkpoint, inclusion proof, consistency proof. */
export async function logRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  requireOwner(app, ctx);
  const security = [{ bearer: [] }];

  app.get('/v1/log/checkpoint', { schema: { ...getLogCheckpoint, security, response: { 200: textAnswer('The checkpoint note.', EXAMPLE_NOTE) } } }, async (_request, reply) => {
    const { note } = await newestNote(ctx);
    return reply.header('cache-control', 'no-store').type(TEXT).send(note);
  });

  app.get(
    '/v1/sessions/:id/responses/:event_id/proof',
    { schema: { ...getResponseProof, security, params: proofParams, response: { 200: textAnswer('The proof bundle.', `c2sp.org/tlog-proof@v1\nextra WyI…\nindex 1041\n…\n\n${EXAMPLE_NOTE}`) } } },
    async (request: FastifyRequest<{ Params: { id: string; event_id: string } }>, reply) => {
      const { id, event_id: eventId } = request.params;
      if (!(await ownedViewRow(ctx.store.pool, ownerOf(request), id))) throw refusalError(SESSION_REFUSALS, { refused: 'session_not_found' });
      const leaf = await eventLeaf(ctx.store.pool, eventId, id);
      if (!leaf || !PROVABLE.has(leaf.type)) throw refused({ refused: 'logged_event_not_found' });
      const { note, head } = await newestNote(ctx);
      if (leaf.index === undefined || leaf.index >= head.size) throw refused({ refused: 'not_checkpointed_yet', retryAfterSeconds: ctx.config.checkpointIntervalS });
      const proof = await inclusionProof(ctx.store.pool, leaf.index, head.size);
      return reply.header('cache-control', 'no-store').type(TEXT).send(formatTlogProof({ extra: leaf.leaf, index: leaf.index, proof, checkpoint: note }));
    },
  );

  app.get(
    '/v1/log/consistency',
    { schema: { ...getLogConsistency, security, querystring: consistencyQuery, response: { 200: consistencyResponse } } },
    async (request: FastifyRequest<{ Querystring: { from: string; to: string } }>, reply) => {
      const [from, to] = [Number(request.query.from), Number(request.query.to)];
      if (from < 1 || from > to) throw refused({ refused: 'consistency_sizes', from, to });
      const size = await treeSize(ctx.store.pool);
      if (to > size) throw refused({ refused: 'tree_size_not_reached', size });
      const proof = await consistencyProof(ctx.store.pool, from, to);
      return reply.header('cache-control', 'no-store').send({ from, to, proof: proof.map(toBase64) });
    },
  );
}
