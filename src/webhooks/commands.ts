import { handleCommand, newUlid, type Step } from '../../eventstore/index.js';
import type { OwnerPrincipal } from '../principal.js';
import { spendQuota, type QuotaRefusal } from '../quotas/index.js';
import type { ServiceContext } from '../serviceContext.js';
import {
  currentEndpoint,
  ENDPOINT_REGISTERED,
  endpointBody,
  type EndpointBody,
  loadWebhook,
  newSigningSecret,
  recordVerification,
  register,
  reseal,
  rotate,
  SECRET_CREATED,
  secretsInForce,
  type Subscribable,
  secretValues,
  sendChallenge,
  storedSecrets,
  type SigningSecret,
  type VerificationFailure,
  webhookDecider,
  type SecretCreated,
  type SecretResealed,
  type WebhookEvent,
  type WebhookState,
  webhookStreamId,
} from './endpoints/index.js';
import { endPendingDeliveries } from './deliveries/index.js';
import * as sql from './sql.js';

/** The owner's webhook operations on a workspace, each deciding on the stream it appends to. */

const currentEndpointBody = (state: WebhookState, now: Date): EndpointBody => endpointBody(state.endpoint!, now);

type WebhookStep<R = never> = Step<WebhookState, WebhookEvent, R>;

/** A step: one use of the workspace's quota of webhook changes, when the decision changes something. */
const spendChange =
  (ctx: Pick<ServiceContext, 'clock' | 'metrics'>, principal: OwnerPrincipal): WebhookStep<QuotaRefusal> =>
  ({ uow, events }) =>
    events.length > 0 ? spendQuota(uow, ctx, principal, 'webhook_change') : undefined;

/** A step: each secret to be sealed again, opened from data key `initial` (the append seals it with the stream's key). */
const openToReseal =
  (ctx: Pick<ServiceContext, 'streamKeys'>): WebhookStep =>
  ({ before, events }) => {
    const opened = secretValues(ctx, before.secrets.filter((s) => s.sealedByInitial !== null));
    for (const pending of events) {
      const { secret } = opened.find((s) => s.kid === (pending.event as SecretResealed).kid)!;
      pending.event = { ...pending.event, secret } as SecretResealed;
    }
  };

/**
 * PUT /v1/webhook. A new URL replaces the endpoint and ends the old one's pending jobs, within the
 * workspace's quota of webhook changes (the URL already registered changes nothing and spends
 * nothing); the first registration returns the workspace's signing secret, once.
 */
export async function registerEndpoint(
  ctx: Pick<ServiceContext, 'clock' | 'metrics' | 'store' | 'streamKeys'>,
  principal: OwnerPrincipal,
  url: string,
  subscribed: Subscribable[],
): Promise<{ endpoint: EndpointBody; signing_secret: SigningSecret | null } | QuotaRefusal> {
  const { workspaceId } = principal;
  const secret = newSigningSecret();
  return ctx.store.command(async (uow) => {
    const now = ctx.clock.now();
    const decide = (state: WebhookState) => ({ events: register(state, { workspaceId, endpointId: `whe_${newUlid()}`, url, events: subscribed, at: now, secret }) });
    const handled = await handleCommand<WebhookState, WebhookEvent, QuotaRefusal>(uow, webhookDecider, webhookStreamId(workspaceId), decide, {
      keys: ctx.streamKeys,
      steps: [spendChange(ctx, principal)],
    });
    if ('refused' in handled) return handled;
    const replaced = handled.before.endpoint;
    // Only a new URL replaces the endpoint; asking for other events keeps its jobs.
    if (replaced && handled.events.some((e) => e.type === ENDPOINT_REGISTERED)) await endPendingDeliveries(uow, replaced.id, now);
    const created = handled.events.some((e) => e.type === SECRET_CREATED);
    return { endpoint: currentEndpointBody(handled.state, now), signing_secret: created ? secret : null };
  });
}

/** POST /v1/webhook/secrets/rotate, within the quota of webhook changes; undefined when the workspace has no webhook. */
export async function rotateSecret(
  ctx: Pick<ServiceContext, 'clock' | 'metrics' | 'store' | 'streamKeys'>,
  principal: OwnerPrincipal,
): Promise<{ signing_secret: SigningSecret; previous: { kid: string; retire_at: string } | null } | QuotaRefusal | undefined> {
  const { workspaceId } = principal;
  const secret = newSigningSecret();
  return ctx.store.command(async (uow) => {
    const decide = (state: WebhookState) => rotate(state, { workspaceId, at: ctx.clock.now(), secret });
    const handled = await handleCommand<WebhookState, WebhookEvent, QuotaRefusal | { refused: 'not_configured' }>(uow, webhookDecider, webhookStreamId(workspaceId), decide, {
      keys: ctx.streamKeys,
      steps: [spendChange(ctx, principal)],
    });
    if ('refused' in handled) return handled.refused === 'not_configured' ? undefined : handled;
    const [created] = handled.events as SecretCreated[];
    return { signing_secret: secret, previous: created!.retires && { kid: created!.retires.kid, retire_at: created!.retires.retire_at } };
  });
}

/**
 * POST /v1/webhook/verify: challenges the current endpoint and, if it answers, records the
 * verification for 30 days. A success for an endpoint replaced meanwhile counts for nothing. The
 * challenge counts toward the workspace's quota of verifications whatever its outcome: the use is
 * committed before it is sent.
 */
export async function verifyEndpoint(
  ctx: Pick<ServiceContext, 'clock' | 'egress' | 'metrics' | 'store' | 'streamKeys'>,
  principal: OwnerPrincipal,
): Promise<{ endpoint: EndpointBody } | { failure: VerificationFailure | 'endpoint_replaced' } | QuotaRefusal | undefined> {
  const { workspaceId } = principal;
  const { state } = await loadWebhook(ctx, ctx.store.pool, workspaceId);
  if (!state.endpoint) return undefined;
  const refused = await ctx.store.command((uow) => spendQuota(uow, ctx, principal, 'webhook_verification'));
  if (refused) return refused;
  const endpointId = state.endpoint.id;
  const secrets = secretValues(ctx, secretsInForce(state.secrets, ctx.clock.now()));
  const sent = await sendChallenge(ctx.egress, { url: state.endpoint.url, secrets, now: ctx.clock.now() });
  if (!sent.ok) return { failure: sent.reason };
  return ctx.store.command(async (uow) => {
    const now = ctx.clock.now();
    const handled = await handleCommand(uow, webhookDecider, webhookStreamId(workspaceId), (current) => recordVerification(current, { endpointId, at: now }), {
      keys: ctx.streamKeys,
    });
    return 'refused' in handled ? { failure: handled.refused } : { endpoint: currentEndpointBody(handled.state, now) };
  });
}

/**
 * Seals every secret of the workspace still sealed with the deployment data key `initial` again,
 * with the workspace's webhook stream's key, for `rekey`: afterwards a rotation covers them, and
 * `initial` can go. Returns how many it sealed again.
 */
export async function resealSecrets(ctx: Pick<ServiceContext, 'clock' | 'store' | 'streamKeys'>, workspaceId: string): Promise<number> {
  return ctx.store.command(async (uow) => {
    const handled = await handleCommand<WebhookState, WebhookEvent>(uow, webhookDecider, webhookStreamId(workspaceId), (state) => ({ events: reseal(state, { workspaceId, at: ctx.clock.now() }) }), {
      keys: ctx.streamKeys,
      steps: [openToReseal(ctx)],
    });
    return handled.events.length;
  });
}

/** GET /v1/webhook, from the read models: endpoint, secrets (never values) and job counts. */
export async function webhookOverview(ctx: Pick<ServiceContext, 'clock' | 'store'>, workspaceId: string): Promise<object> {
  const now = ctx.clock.now();
  const [endpoint, secrets, counts] = await Promise.all([
    currentEndpoint(ctx.store.pool, workspaceId),
    storedSecrets(ctx.store.pool, workspaceId),
    ctx.store.pool.query<{ pending: number; failed: number; delivered: number; oldest_pending: Date | null }>(sql.DELIVERY_COUNTS, [workspaceId]),
  ]);
  const count = counts.rows[0]!;
  const signing = new Set(secretsInForce(secrets, now).map((s) => s.kid));
  return {
    endpoint: endpoint ? endpointBody(endpoint, now) : null,
    // Active: it still signs deliveries (a rotated secret until its overlap ends).
    signing_secrets: secrets.map((s) => ({ kid: s.kid, active: signing.has(s.kid), retire_at: s.retireAt })),
    deliveries: {
      pending: count.pending,
      failed: count.failed,
      delivered: count.delivered,
      oldest_pending_age_seconds: count.oldest_pending ? Math.max(0, Math.floor((now.getTime() - count.oldest_pending.getTime()) / 1000)) : null,
    },
  };
}
