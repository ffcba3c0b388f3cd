import type { Capability } from './http/app.js';
import { humanRoutes } from './human/routes.js';
import { opsRoutes } from './ops/routes.js';
import { receiptRoutes } from './receipts/routes.js';
import { sessionRoutes } from './sessions/routes.js';
import { webhookRoutes } from './webhooks/routes.js';

/** Every capability's routes, in the order they are registered. */
export const capabilities: readonly Capability[] = [opsRoutes, sessionRoutes, receiptRoutes, webhookRoutes, humanRoutes];
