/**
 * A workspace's webhook endpoint, one stream per workspace: its URL, its verification and its
 * signing secrets (sealed with the stream's key), folded by webhookDecider; the endpoint view
 * (projection.ts); the challenge that verifies it; the signature every request to it carries.
 */
export { isVerified, recordVerification, register, reseal, rotate, webhookDecider, type Endpoint, type WebhookState } from './endpoint.js';
export { DEFAULT_EVENTS, ENDPOINT_REGISTERED, SECRET_CREATED, SUBSCRIBABLE, webhookStreamId, type SecretCreated, type SecretResealed, type Subscribable, type WebhookEvent } from './events.js';
export { webhookEndpointsProjection } from './projection.js';
export { countSecretsSealedByInitial, currentEndpoint, secretsSealedByInitial, storedSecrets } from './reads.js';
export { newSigningSecret, openSecrets, secretsInForce, secretValues, type SigningSecret } from './secrets.js';
export { signatureHeaders } from './signing.js';
export { loadWebhook } from './streams.js';
export { MAX_VERIFICATION_ANSWER_BYTES, sendChallenge, type VerificationFailure } from './verification.js';
export { endpointBody, endpointOfJson, type EndpointBody } from './views.js';
