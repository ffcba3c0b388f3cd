import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { ApiError } from '../http/errors.js';

export const OPERATOR_WORKSPACE = 'wks_operator';

/** Who is calling an owner route: the workspace it acts in and the credential (for scoping). */
export interface OwnerPrincipal {
  workspaceId: string;
  /** Stable, non-secret id of the credential; idempotency records are scoped to it. */
  credentialId: string;
  kind: 'owner_key' | 'developer_key';
  /** Owner keys hold links for 720 h; developer keys (free plan) for 168 h (SPEC 8). */
  linkLifetimeHours: number;
  /** How long a Session is kept after it ends before it is purged: 720 h or 168 h (SPEC 8). */
  retentionHours: number;
}

/**
 * Credential resolvers are tried in order; the first that recognizes the token answers. A new kind
 * of credential (developer API keys) is one more resolver; the routes never change.
 */
export type CredentialResolver = (token: string, ctx: ServiceContext) => Promise<OwnerPrincipal | undefined>;

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();
const ownerKeyDigests = new WeakMap<ServiceContext, Buffer>();

/** The deployment owner key, compared in constant time (over digests, so lengths do not leak). */
export const ownerKeyResolver: CredentialResolver = async (token, ctx) => {
  const ownerKey = ctx.config.ownerKey;
  if (!ownerKey) return undefined;
  let expected = ownerKeyDigests.get(ctx);
  if (!expected) ownerKeyDigests.set(ctx, (expected = digest(ownerKey)));
  if (!timingSafeEqual(digest(token), expected)) return undefined;
  return { workspaceId: OPERATOR_WORKSPACE, credentialId: 'owner', kind: 'owner_key', linkLifetimeHours: 720, retentionHours: 720 };
};

export const credentialResolvers: CredentialResolver[] = [ownerKeyResolver];

const unauthorized = () => new ApiError(401, 'UNAUTHORIZED', 'A valid owner credential is required (Authorization: Bearer <key>).');

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^Bearer ([\x21-\x7e]+)$/.exec(header);
  return match?.[1];
}

/** Resolves the owner credential of a request or throws 401 UNAUTHORIZED. */
export async function authenticateOwner(request: FastifyRequest, ctx: ServiceContext): Promise<OwnerPrincipal> {
  const token = bearerToken(request);
  if (token === undefined) throw unauthorized();
  for (const resolve of credentialResolvers) {
    const principal = await resolve(token, ctx);
    if (principal) return principal;
  }
  throw unauthorized();
}
