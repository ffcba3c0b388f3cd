import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ownerOf } from '../auth/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { readSessionPage } from './list.js';
import { decodeListCursor, encodeListCursor, LIST_START } from './listCursor.js';
import { LIST_LIMIT, listQuerySchema, listSessionsOperation, sessionListResponseSchema } from './listSchemas.js';
import { sessionRefused } from './refusals.js';
import type { SessionStatus } from './state.js';

type ListRequest = FastifyRequest<{ Querystring: { after?: string; limit?: string; status?: SessionStatus; client_reference_id?: string } }>;

/** GET /v1/sessions: the caller's workspace's Sessions, newest first, page by page (docs/sessions.md). Registered in the Sessions' owner scope. */
export function listRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.addSchema(sessionListResponseSchema);
  app.get(
    '/v1/sessions',
    {
      schema: {
        ...listSessionsOperation,
        security: [{ bearer: [] }],
        querystring: listQuerySchema,
        response: { 200: { $ref: 'SessionListResponse#' } },
      },
    },
    async (request: ListRequest, reply) => {
      const { after: given, limit, status, client_reference_id: clientReferenceId } = request.query;
      const after = given === undefined ? LIST_START : decodeListCursor(given);
      if ('refused' in after) throw sessionRefused(after);
      const filter = { ...(status === undefined ? {} : { status }), ...(clientReferenceId === undefined ? {} : { clientReferenceId }) };
      const page = await readSessionPage(ctx, ownerOf(request).workspaceId, filter, after, limit === undefined ? LIST_LIMIT.default : Number(limit));
      return reply.type('application/json; charset=utf-8').send(`{"data":[${page.items.join(',')}],"next_cursor":${JSON.stringify(encodeListCursor(page.next))}}`);
    },
  );
}
