import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ownerOf, requireOwner } from '../auth/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { refusalError, type RefusalTable } from '../http/refusal.js';
import { QUOTA_REFUSALS, type QuotaRefusal } from '../quotas/index.js';
import { registerEndpoint, rotateSecret, verifyEndpoint, webhookOverview } from './commands.js';
import { policyOf } from './egress.js';
import { deliveryItem, type DeliveryRow, redeliver } from './deliveries/index.js';
import { DEFAULT_EVENTS, type Subscribable } from './endpoints/index.js';
import { registerRequestSchema, sessionEventParams, sessionParams } from './requestSchemas.js';
import {
  deliveriesResponseSchema,
  registerResponseSchema,
  rotateResponseSchema,
  verifyResponseSchema,
  webhookEndpointSchema,
  webhookOperations,
  webhookResponseSchema,
} from './schemas.js';
import { ownedViewRow, SESSION_REFUSALS, type SessionRefusal } from '../sessions/index.js';
import { ownedAcceptedResponses } from './sessionAccess.js';
import * as sql from './sql.js';
import { WEBHOOK_REFUSALS, type WebhookRefusal } from './refusals.js';
import { checkWebhookUrl } from './url.js';

/** The webhook routes' refusals, with the quotas' (a full quota) and the Sessions' (an unknown Session). */
const REFUSALS: RefusalTable<WebhookRefusal | QuotaRefusal | SessionRefusal> = { ...WEBHOOK_REFUSALS, ...QUOTA_REFUSALS, ...SESSION_REFUSALS };
const refused = (refusal: WebhookRefusal | QuotaRefusal | SessionRefusal) => refusalError(REFUSALS, refusal);


type SessionRequest = FastifyRequest<{ Params: { id: string } }>;
type EventRequest = FastifyRequest<{ Params: { id: string; event_id: string } }>;

/** The webhook and delivery routes of the owner API, for the credential's workspace. */
export async function webhookRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  for (const schema of [webhookEndpointSchema, registerResponseSchema, webhookResponseSchema, verifyResponseSchema, rotateResponseSchema, deliveriesResponseSchema]) {
    app.addSchema(schema);
  }
  requireOwner(app, ctx);
  const security = [{ bearer: [] }];

  app.put(
    '/v1/webhook',
    {
      schema: { ...webhookOperations.registerWebhook, security, body: registerRequestSchema, response: { 201: { $ref: 'WebhookRegisterResponse#' } } },
    },
    async (request: FastifyRequest<{ Body: { url: string; events?: Subscribable[] } }>, reply) => {
      const principal = ownerOf(request);
      const checked = checkWebhookUrl(request.body.url, policyOf(ctx.config));
      if ('refusal' in checked) throw refused({ refused: 'webhook_url_invalid', rule: checked.refusal });
      // Signing secrets are sealed with the data key: without it nothing can be signed or stored.
      ctx.streamKeys.deploymentKey.require();
      const registered = await registerEndpoint(ctx, principal, checked.url, request.body.events ?? [...DEFAULT_EVENTS]);
      if ('refused' in registered) throw refused(registered);
      return reply.code(201).send(registered);
    },
  );

  app.get('/v1/webhook', { schema: { ...webhookOperations.getWebhook, security, response: { 200: { $ref: 'WebhookResponse#' } } } }, async (request) => {
    const principal = ownerOf(request);
    return webhookOverview(ctx, principal.workspaceId);
  });

  app.post(
    '/v1/webhook/verify',
    {
      schema: {
        ...webhookOperations.verifyWebhook,
        security,
        description:
          'Sends a signed challenge to the registered URL. 200 when the endpoint echoed it; 422 WEBHOOK_VERIFICATION_FAILED ' +
          '(reason: the attempt outcome, answer_too_large, challenge_mismatch or endpoint_replaced) when it did not.',
        response: { 200: { $ref: 'WebhookVerifyResponse#' } },
      },
    },
    async (request) => {
      const principal = ownerOf(request);
      ctx.streamKeys.deploymentKey.require();
      const verified = await verifyEndpoint(ctx, principal);
      if (!verified) throw refused({ refused: 'no_endpoint_to_verify' });
      if ('refused' in verified) throw refused(verified);
      if ('failure' in verified) throw refused({ refused: 'webhook_verification_failed', failure: verified.failure });
      return verified;
    },
  );

  app.post(
    '/v1/webhook/secrets/rotate',
    { schema: { ...webhookOperations.rotateWebhookSecret, security, response: { 201: { $ref: 'WebhookRotateResponse#' } } } },
    async (request, reply) => {
      const principal = ownerOf(request);
      ctx.streamKeys.deploymentKey.require();
      const rotated = await rotateSecret(ctx, principal);
      if (!rotated) throw refused({ refused: 'no_endpoint_to_rotate' });
      if ('refused' in rotated) throw refused(rotated);
      return reply.code(201).send(rotated);
    },
  );

  app.get(
    '/v1/sessions/:id/deliveries',
    { schema: { ...webhookOperations.listSessionDeliveries, security, params: sessionParams, response: { 200: { $ref: 'DeliveriesResponse#' } } } },
    async (request: SessionRequest) => {
      const principal = ownerOf(request);
      const { id } = request.params;
      if (!(await ownedViewRow(ctx.store.pool, principal, id))) throw refused({ refused: 'session_not_found' });
      const { rows } = await ctx.store.pool.query<DeliveryRow>(sql.SESSION_DELIVERIES, [id]);
      return { id, deliveries: rows.map(deliveryItem) };
    },
  );

  app.post(
    '/v1/sessions/:id/events/:event_id/redeliver',
    {
      schema: {
        ...webhookOperations.redeliverEvent,
        security,
        params: sessionEventParams,
        response: { 202: { type: 'null', description: 'Queued, or already pending to the current endpoint' } },
      },
    },
    async (request: EventRequest, reply) => {
      const principal = ownerOf(request);
      const { id, event_id: eventId } = request.params;
      const result = await ctx.store.command(async (uow) => {
        // The Session's turn, which its purge takes too: a job is never queued for a purged Session.
        await uow.lockStream(id);
        const responses = await ownedAcceptedResponses(uow, ctx, principal, id);
        if ('refused' in responses) throw refused(responses);
        const accepted = responses.find((a) => a.eventId === eventId);
        if (!accepted) throw refused({ refused: 'accepted_response_not_found' });
        return redeliver(uow, ctx, accepted);
      });
      if (result === 'not_configured') throw refused({ refused: 'no_verified_endpoint' });
      return reply.code(202).send();
    },
  );
}
