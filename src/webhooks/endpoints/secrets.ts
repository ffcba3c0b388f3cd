import { randomBytes } from 'node:crypto';
import { ulid } from 'ulid';
import type { Reader, StreamKeys, UnitOfWork } from '../../../eventstore/index.js';
import { webhookStreamId } from './events.js';

/**
 * Signing secrets: `whsec_` + base64 of 32 random bytes, shown once, kept only sealed with the
 * workspace's webhook stream's data key (itself wrapped by the deployment data key, so a rotation
 * of that key covers them). The key ID names the secret in headers and lists.
 */

export interface SigningSecret {
  kid: string;
  secret: string;
}

/** A secret as stored: sealed, with its lifetime. `retireAt` null: it signs until rotated. */
export interface StoredSecret {
  kid: string;
  sealed: string;
  /** `initial`: sealed directly with the deployment data key `initial`, as secrets were before they went under the stream's key. */
  sealedBy: 'stream' | 'initial';
  createdAt: string;
  retireAt: string | null;
}

export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export function newSigningSecret(): SigningSecret {
  return { kid: `wk_${ulid()}`, secret: `whsec_${randomBytes(32).toString('base64')}` };
}

/** Sealed with the webhook stream's data key (made on the stream's first secret), its kid inside: it opens as no other secret. */
export const sealSecret = (streamKeys: StreamKeys, uow: UnitOfWork, workspaceId: string, secret: SigningSecret): Promise<string> =>
  streamKeys.seal(uow, webhookStreamId(workspaceId), secret);

/** The workspace's stored secrets, opened: by the stream key, or by the deployment key those sealed with `initial`. */
export async function openSecrets({ streamKeys }: { streamKeys: StreamKeys }, db: Reader, workspaceId: string, stored: readonly StoredSecret[]): Promise<SigningSecret[]> {
  const open = stored.some((s) => s.sealedBy === 'stream') ? await streamKeys.opener(db, webhookStreamId(workspaceId)) : undefined;
  return stored.map((s) => {
    if (s.sealedBy === 'initial') return { kid: s.kid, secret: streamKeys.deploymentKey.openInitial(s.sealed, `webhook-secret:${s.kid}`) };
    const opened = open!(s.sealed) as Partial<SigningSecret>;
    if (opened.kid !== s.kid || typeof opened.secret !== 'string') throw new Error(`the sealed value of signing secret ${s.kid} is not that secret`);
    return { kid: s.kid, secret: opened.secret };
  });
}

/** The secrets that sign at this instant, newest first: one, or two during a rotation's overlap. */
export function secretsInForce<T extends StoredSecret>(secrets: readonly T[], at: Date): T[] {
  return secrets
    .filter((s) => s.retireAt === null || new Date(s.retireAt) > at)
    .sort((a, b) => (a.createdAt === b.createdAt ? b.kid.localeCompare(a.kid) : b.createdAt.localeCompare(a.createdAt)));
}
