import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ownerOf, requireOwner } from '../auth/index.js';
import { refusalError } from '../http/refusal.js';
import type { ServiceContext } from '../serviceContext.js';
import { NOTIFICATION_REFUSALS } from './refusals.js';
import { slackRequestSchema } from './requestSchemas.js';
import { slackOperations, slackSettingSchema } from './schemas.js';
import { checkSlackUrl, removeSlackWebhook, setSlackWebhook, slackSettingBody, slackWebhookOf } from './slack/index.js';

/** The credential's own workspace's Slack webhook: PUT sets it, GET reads whether it has one, DELETE removes it. */
export async function notificationRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  app.addSchema(slackSettingSchema);
  requireOwner(app, ctx);
  const security = [{ bearer: [] }];
  const response = { 200: { $ref: 'SlackSettingResponse#' } };
  const path = '/v1/notifications/slack';

  app.put(path, { schema: { ...slackOperations.setSlackWebhook, security, body: slackRequestSchema, response } }, async (request: FastifyRequest<{ Body: { webhook_url: string } }>) => {
    const { workspaceId } = ownerOf(request);
    const checked = checkSlackUrl(request.body.webhook_url, ctx.config);
    if ('refusal' in checked) throw refusalError(NOTIFICATION_REFUSALS, { refused: 'slack_url_invalid', rule: checked.refusal });
    // The URL is sealed with the stream's key: without the data key nothing can be stored.
    ctx.streamKeys.deploymentKey.require();
    return slackSettingBody(await setSlackWebhook(ctx, workspaceId, checked.url));
  });

  app.get(path, { schema: { ...slackOperations.getSlackWebhook, security, response } }, async (request) => {
    const { workspaceId } = ownerOf(request);
    ctx.streamKeys.deploymentKey.require();
    return slackSettingBody(await slackWebhookOf(ctx, ctx.store.pool, workspaceId));
  });

  app.delete(path, { schema: { ...slackOperations.removeSlackWebhook, security, response } }, async (request) => {
    const { workspaceId } = ownerOf(request);
    ctx.streamKeys.deploymentKey.require();
    return slackSettingBody(await removeSlackWebhook(ctx, workspaceId));
  });
}
