import type { FastifyRequest } from 'fastify';
import type { HeldRead } from '../waits/index.js';
import { authenticateOwner, ownerOf } from './owner.js';
import type { ServiceContext } from '../serviceContext.js';

/**
 * What an owner route's credential gives a held read: the workspace whose places it takes (the
 * operator's for the owner key, a developer account's for its keys), and the credential checked
 * again before a held request answers, so a key revoked or expired during the wait answers 401.
 */
export function ownerHold(request: FastifyRequest, ctx: ServiceContext): Pick<HeldRead<unknown>, 'workspaceId' | 'workspaceKind' | 'recheck'> {
  const principal = ownerOf(request);
  return {
    workspaceId: principal.workspaceId,
    workspaceKind: principal.kind === 'owner_key' ? 'operator' : 'developer',
    // A method, as the held read's own (src/sessions/routes.ts says why).
    async recheck() {
      await authenticateOwner(request, ctx);
    },
  };
}
