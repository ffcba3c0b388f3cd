import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ownerOf } from '../auth/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { reissueLink } from './reissue.js';
import { reissuedLinkResponseSchema, reissueLinkOperation } from './reissueSchemas.js';
import { sessionRefused } from './refusals.js';
import { sessionIdParams } from './requestSchemas.js';
import { etagOf } from './state.js';
import { sessionBody, withLastMember } from './view.js';

/** POST /v1/sessions/{id}/link (docs/sessions.md). Registered in the Sessions' owner scope. */
export function reissueRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.addSchema(reissuedLinkResponseSchema);
  app.post(
    '/v1/sessions/:id/link',
    {
      schema: {
        ...reissueLinkOperation,
        security: [{ bearer: [] }],
        params: sessionIdParams,
        response: { 200: { $ref: 'ReissuedLinkResponse#' } },
      },
    },
    async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
      // Only the link's hash is kept: a replay could not answer the link it made.
      if (request.headers['idempotency-key'] !== undefined) throw sessionRefused({ refused: 'link_not_replayable', route: 'POST /v1/sessions/{id}/link' });
      const outcome = await reissueLink(ctx, ownerOf(request), request.params.id);
      if ('refused' in outcome) throw sessionRefused(outcome);
      // The body GET serves, with the new link as its last member.
      return reply.header('etag', etagOf(outcome.state)).type('application/json; charset=utf-8').send(withLastMember(sessionBody(outcome.state), 'human_url', outcome.humanUrl));
    },
  );
}
