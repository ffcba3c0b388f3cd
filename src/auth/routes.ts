import type { FastifyInstance } from 'fastify';
import { STORE_FAULTS } from '../http/edgeRefusals.js';
import { AUTH_REFUSALS } from './refusals.js';
import type { ServiceContext } from '../serviceContext.js';
import { operation } from '../http/contract.js';
import { ownerOf, requireOwner } from './owner.js';

/**
 * GET /v1/me: which workspace the owner credential acts in, and which kind of credential it is.
 * Receipts name the Session's workspace as their audience, and a developer key's workspace is
 * otherwise shown only on the keys page, so a client learns here what audience to expect. Like
 * every owner route it answers 401 to anything else, a trial's management credential included
 * (a trial's workspace_id comes with the trial's first Session).
 */

const meResponseSchema = {
  $id: 'MeResponse',
  type: 'object',
  required: ['workspace_id', 'credential'],
  additionalProperties: false,
  properties: {
    workspace_id: { type: 'string', description: "The credential's workspace: the audience of its Sessions' receipts (wks_operator for the owner key)." },
    credential: { type: 'string', enum: ['owner', 'developer'], description: 'owner: the deployment owner key; developer: a developer API key (svc_sk_...).' },
  },
} as const;

const getMe = operation({
  operationId: 'getMe',
  summary: 'The workspace the credential acts in, and its kind',
  answers: { 200: { description: "The credential's workspace (the audience of its Sessions' receipts) and kind.", example: { workspace_id: 'wks_01JQ8Z5XK2Q4S6T8W0Y2A4C6E8', credential: 'developer' } } },
  refuses: [AUTH_REFUSALS.owner_credential_required, ...STORE_FAULTS],
});

const CREDENTIALS = { owner_key: 'owner', developer_key: 'developer' } as const;

export async function meRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  app.addSchema(meResponseSchema);
  requireOwner(app, ctx);
  app.get(
    '/v1/me',
    {
      schema: {
        ...getMe,
        description: 'The workspace the owner credential acts in (the audience of its receipts) and its kind.',
        security: [{ bearer: [] }],
        response: { 200: { $ref: 'MeResponse#' } },
      },
    },
    async (request) => {
      const principal = ownerOf(request);
      return { workspace_id: principal.workspaceId, credential: CREDENTIALS[principal.kind] };
    },
  );
}
