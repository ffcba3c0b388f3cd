import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Reader } from '../../eventstore/index.js';
import type { OwnerPrincipal, SessionOfWorkspace } from '../principal.js';
import type { CredentialResolver, ServiceContext } from '../serviceContext.js';
import { internal } from '../http/edgeRefusals.js';
import { refusalError } from '../http/refusal.js';
import { AUTH_REFUSALS } from './refusals.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The owner credential's principal, on routes that require one (see requireOwner). */
    owner: OwnerPrincipal | null;
  }
}

export const OPERATOR_WORKSPACE = 'wks_operator';

export type { OwnerPrincipal, SessionOfWorkspace } from '../principal.js';

/** What a principal may do with a Session: change it (its workspace's), only read it, or nothing. */
export type SessionAccess = 'change' | 'read' | 'none';

/**
 * The one check of a principal against a Session's workspace, which every owner route goes
 * through (sessions/commands.ts: ownedViewRow for reads, loadChangeableSession for changes).
 */
export async function sessionAccess(db: Reader, principal: OwnerPrincipal, session: SessionOfWorkspace): Promise<SessionAccess> {
  if (session.workspaceId === principal.workspaceId) return 'change';
  return (await principal.mayRead?.(db, session)) ? 'read' : 'none';
}

export type { CredentialResolver } from '../serviceContext.js';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Whether a presented token is the configured secret, compared in constant time (over digests, so lengths do not leak). */
export const isSecret = (token: string, secret: string | undefined): boolean => secret !== undefined && timingSafeEqual(digest(token), digest(secret));

/** The deployment owner key. */
export const ownerKeyResolver: CredentialResolver = async (token, ctx) => {
  if (!isSecret(token, ctx.config.ownerKey)) return undefined;
  return { workspaceId: OPERATOR_WORKSPACE, credentialId: 'owner', kind: 'owner_key', linkLifetimeHours: 720, retentionHours: 720 };
};

const unauthorized = () => refusalError(AUTH_REFUSALS, { refused: 'owner_credential_required' });

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^Bearer ([\x21-\x7e]+)$/.exec(header);
  return match?.[1];
}

/**
 * Resolves the owner credential of a request or throws 401 UNAUTHORIZED. A held read calls it
 * again before it answers (src/waits/held.ts): a key revoked or expired during the wait is refused.
 */
export async function authenticateOwner(request: FastifyRequest, ctx: ServiceContext): Promise<OwnerPrincipal> {
  const token = bearerToken(request);
  if (token === undefined) throw unauthorized();
  for (const resolve of ctx.credentialResolvers) {
    const principal = await resolve(token, ctx);
    if (principal) return principal;
  }
  throw unauthorized();
}

/**
 * Every route of `app`'s scope requires the owner credential, checked before the request is
 * validated: a caller without one is told 401, never what its body lacks. A body that is not
 * JSON at all is refused (400) before this, when it is read.
 */
export function requireOwner(app: FastifyInstance, ctx: ServiceContext): void {
  app.decorateRequest('owner', null);
  app.addHook('preValidation', async (request) => {
    request.owner = await authenticateOwner(request, ctx);
  });
}

/** The principal requireOwner authenticated. */
export function ownerOf(request: FastifyRequest): OwnerPrincipal {
  if (!request.owner) throw internal();
  return request.owner;
}
