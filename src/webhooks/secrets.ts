import { randomBytes } from 'node:crypto';
import { ulid } from 'ulid';
import type { DeploymentKey } from '../../eventstore/index.js';

/**
 * Signing secrets: `whsec_` + base64 of 32 random bytes, shown once,
 * kept only sealed with the deployment data key. The key ID names the secret in headers and lists.
 */

export interface SigningSecret {
  kid: string;
  secret: string;
}

/** A secret as stored: sealed, with its lifetime. `retireAt` null: it signs until rotated. */
export interface StoredSecret {
  kid: string;
  sealed: string;
  createdAt: string;
  retireAt: string | null;
}

export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export function newSigningSecret(): SigningSecret {
  return { kid: `wk_${ulid()}`, secret: `whsec_${randomBytes(32).toString('base64')}` };
}

const sealContext = (kid: string): string => `webhook-secret:${kid}`;

export const sealSecret = (key: DeploymentKey, secret: SigningSecret): string => key.seal(secret.secret, sealContext(secret.kid));

export const openSecret = (key: DeploymentKey, stored: StoredSecret): SigningSecret => ({
  kid: stored.kid,
  secret: key.open(stored.sealed, sealContext(stored.kid)),
});

/** The secrets that sign at this instant, newest first: one, or two during a rotation's overlap. */
export function secretsInForce<T extends StoredSecret>(secrets: readonly T[], at: Date): T[] {
  return secrets
    .filter((s) => s.retireAt === null || new Date(s.retireAt) > at)
    .sort((a, b) => (a.createdAt === b.createdAt ? b.kid.localeCompare(a.kid) : b.createdAt.localeCompare(a.createdAt)));
}
