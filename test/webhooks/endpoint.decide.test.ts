import { describe, it } from 'vitest';
import { recordVerification, register, reseal, rotate, webhookDecider } from '../../src/webhooks/endpoints/endpoint.js';
import type { EndpointRegistered, SecretCreated, Subscribable, WebhookEvent } from '../../src/webhooks/endpoints/events.js';
import { deciderSpec } from '../support/decider.js';

/** The webhook endpoint decider, pure: given the workspace's webhook events, when a command, then events, nothing or a refusal. */

const spec = deciderSpec(webhookDecider);
const T0 = Date.parse('2026-06-01T00:00:00.000Z');
const HOUR = 3_600_000;
const at = (ms: number) => new Date(T0 + ms);
const iso = (ms: number) => at(ms).toISOString();

/** Without `events`: as endpoints were registered before they could ask for any. */
const registered = (id: string, url: string, ms = 0, replaces: string | null = null, events?: EndpointRegistered['events']): EndpointRegistered => ({
  type: 'webhook.endpoint_registered',
  at: iso(ms),
  workspace_id: 'wks_W',
  endpoint_id: id,
  url,
  replaces,
  ...(events ? { events } : {}),
});
const secret = (kid: string, ms = 0, retires: SecretCreated['retires'] = null): SecretCreated => ({
  type: 'webhook.secret_created',
  at: iso(ms),
  workspace_id: 'wks_W',
  kid,
  secret: `whsec_${kid}`,
  retires,
});
const verified = (id: string, ms: number): WebhookEvent => ({ type: 'webhook.endpoint_verified', at: iso(ms), endpoint_id: id, expires_at: iso(ms + 30 * 24 * HOUR) });

const ACCEPTED: Subscribable[] = ['response.accepted'];
const BOTH: Subscribable[] = ['response.accepted', 'session.expired'];
const put = (url: string, ms = 0, events = ACCEPTED) => ({ workspaceId: 'wks_W', endpointId: 'whe_NEW', url, events, at: at(ms), secret: { kid: 'wk_NEW', secret: 'whsec_wk_NEW' } });

describe('register', () => {
  it('registers the first endpoint with the workspace signing secret (sealed as it is stored)', () => {
    spec()
      .when((state) => ({ events: register(state, put('https://a.example/hook')) }))
      .then(registered('whe_NEW', 'https://a.example/hook', 0, null, ACCEPTED), secret('wk_NEW'));
  });

  it('replaces the endpoint on a new URL, with no new secret', () => {
    spec(registered('whe_A', 'https://a.example/hook'), secret('wk_A'))
      .when((state) => ({ events: register(state, put('https://b.example/hook', HOUR)) }))
      .then(registered('whe_NEW', 'https://b.example/hook', HOUR, 'whe_A', ACCEPTED));
  });

  it('changes nothing on the URL already registered (a retried PUT keeps its verification)', () => {
    spec(registered('whe_A', 'https://a.example/hook'), secret('wk_A'), verified('whe_A', HOUR))
      .when((state) => ({ events: register(state, put('https://a.example/hook', 2 * HOUR)) }))
      .thenNothing();
  });

  it('on the URL already registered with other events: the same endpoint receives them from now on', () => {
    spec(registered('whe_A', 'https://a.example/hook'), secret('wk_A'), verified('whe_A', HOUR))
      .when((state) => ({ events: register(state, put('https://a.example/hook', 2 * HOUR, BOTH)) }))
      .then({ type: 'webhook.endpoint_subscribed', at: iso(2 * HOUR), endpoint_id: 'whe_A', events: BOTH });
    spec(registered('whe_A', 'https://a.example/hook', 0, null, BOTH), secret('wk_A'))
      .when((state) => ({ events: register(state, put('https://a.example/hook', HOUR, ['session.expired', 'response.accepted'])) }))
      .thenNothing();
  });
});

describe('rotate', () => {
  it('adds a secret; the newest one keeps signing for 24 hours', () => {
    spec(registered('whe_A', 'https://a.example/hook'), secret('wk_A'))
      .when((state) => rotate(state, { workspaceId: 'wks_W', at: at(HOUR), secret: { kid: 'wk_NEW', secret: 'whsec_wk_NEW' } }))
      .then(secret('wk_NEW', HOUR, { kid: 'wk_A', retire_at: iso(25 * HOUR) }));
  });

  it('refuses a workspace with no endpoint', () => {
    spec()
      .when((state) => rotate(state, { workspaceId: 'wks_W', at: at(HOUR), secret: { kid: 'wk_NEW', secret: 'whsec_wk_NEW' } }))
      .refuses('not_configured');
  });
});

describe('recordVerification', () => {
  it('verifies the current endpoint for 30 days', () => {
    spec(registered('whe_A', 'https://a.example/hook'), secret('wk_A'))
      .when((state) => recordVerification(state, { endpointId: 'whe_A', at: at(HOUR) }))
      .then(verified('whe_A', HOUR));
  });

  it('refuses a success for an endpoint replaced meanwhile', () => {
    spec(registered('whe_A', 'https://a.example/hook'), secret('wk_A'), registered('whe_B', 'https://b.example/hook', HOUR, 'whe_A'))
      .when((state) => recordVerification(state, { endpointId: 'whe_A', at: at(2 * HOUR) }))
      .refuses('endpoint_replaced');
  });
});

describe('reseal', () => {
  it('seals again only the secrets still sealed with data key initial', () => {
    const initial = { ...secret('wk_OLD'), secret: null, sealed_by_initial: 'v1.initial' };
    spec(registered('whe_A', 'https://a.example/hook'), initial, secret('wk_NEW', HOUR))
      .when((state) => ({ events: reseal(state, { workspaceId: 'wks_W', at: at(2 * HOUR) }) }))
      .then({ type: 'webhook.secret_resealed', at: iso(2 * HOUR), workspace_id: 'wks_W', kid: 'wk_OLD', secret: '' });
  });

  it('does nothing once every secret is under the stream key', () => {
    spec(registered('whe_A', 'https://a.example/hook'), secret('wk_A'))
      .when((state) => ({ events: reseal(state, { workspaceId: 'wks_W', at: at(HOUR) }) }))
      .thenNothing();
  });
});
