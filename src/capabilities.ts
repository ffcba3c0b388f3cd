import { auditRoutes } from './audit/routes.js';
import { accountRoutes } from './accounts/index.js';
import { feedRoutes } from './feed/index.js';
import { meRoutes } from './auth/routes.js';
import type { Capability } from './http/app.js';
import { humanRoutes } from './human/routes.js';
import { mcpEndpointRoutes } from './mcpEndpoint/routes.js';
import { metricsRoutes } from './ops/metricsRoutes.js';
import { opsRoutes } from './ops/routes.js';
import { receiptRoutes } from './receipts/routes.js';
import { sessionRoutes } from './sessions/routes.js';
import { trialRoutes } from './trials/index.js';
import { webhookRoutes } from './webhooks/routes.js';

/** Every capability's routes, in the order they are registered. */
export const capabilities: readonly Capability[] = [
  opsRoutes,
  sessionRoutes,
  feedRoutes,
  meRoutes,
  trialRoutes,
  receiptRoutes,
  webhookRoutes,
  humanRoutes,
  accountRoutes,
  auditRoutes,
  mcpEndpointRoutes,
  metricsRoutes,
];
