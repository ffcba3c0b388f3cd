/**
 * The client of the hosted handoff service: typed calls, a conditional wait for the person's
 * answer, and the checks an agent needs on what comes back (receipts, webhooks). It imports only
 * its generated types and its own dependencies, so it can be published on its own.
 */
export {
  createClient,
  HandoffClient,
  linkExpired,
  type Answered,
  type Decided,
  type CallOptions,
  type ChangeOptions,
  type ClientOptions,
  type CreateOptions,
  type FeedItem,
  type NotifyOptions,
  type FeedOptions,
  type ListOptions,
  type RegisterOptions,
  type SurfaceRevision,
  type WaitOptions,
} from './client.js';
export { LIMITS, PATTERNS } from './limits.js';
/** Ajv's errors in words, the service's own: the MCP tools word their refusals with them. */
export { argumentProblem, NOT_BLANK, type SchemaError } from './words.js';
export { ClientError, HandoffError, isServiceError, ServiceError, type ClientErrorCode } from './errors.js';
export { verifyReceipt, verifyResolution, type ExpectedReceipt, type ExpectedResolution, type ReceiptKeySource, type VerifyReceiptOptions } from './receipts.js';
export { verifyInclusion, type LogInclusion, type VerifyInclusionOptions } from './inclusion.js';
export { verifyWebhook, type WebhookHeaders } from './webhooks.js';
export type * from './types.js';
export { WAIT_SECONDS_MAX } from './waits.js';
export type { components, paths } from './openapi.js';
