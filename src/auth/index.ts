import type { Capability } from '../capability.js';
import { ownerKeyResolver } from './owner.js';
import { AUTH_REFUSALS } from './refusals.js';
import { meRoutes } from './routes.js';

/**
 * Owner credentials: every owner route's check (requireOwner, sessionAccess), the deployment owner
 * key as the first credential resolver, and GET /v1/me.
 */
export {
  bearerToken,
  isSecret,
  ownerOf,
  requireOwner,
  sessionAccess,
  type CredentialResolver,
  type OwnerPrincipal,
  type SessionOfWorkspace,
} from './owner.js';
export { OPERATOR_WORKSPACE } from './owner.js';
export { ownerHold } from './hold.js';

export { AUTH_REFUSALS };

export const auth: Capability = {
  name: 'auth',
  contract: { tag: { name: 'Credentials', description: 'Which workspace an owner credential acts in, and of what kind.' } },
  routes: meRoutes,
  refusals: AUTH_REFUSALS,
  credentialResolver: ownerKeyResolver,
};
