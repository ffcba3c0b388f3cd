import { randomBytes } from 'node:crypto';
import { erased, newUlid, type Reader, type StreamKeys } from '../../../eventstore/index.js';
import { webhookSealing, webhookStreamId } from './events.js';

/**
 * Signing secrets: `whsec_` + base64 of 32 random bytes, shown once, kept only sealed with the
 * workspace's webhook stream's data key (itself wrapped by the deployment data key, so a rotation
 * of that key covers them), by the sealing scheme of every stream kind. The key ID names the
 * secret in headers and lists.
 */

export interface SigningSecret {
  kid: string;
  secret: string;
}

/** When a secret signs: from its creation; `retireAt` null: until rotated. */
export interface SecretLifetime {
  kid: string;
  createdAt: string;
  retireAt: string | null;
}

/**
 * A secret as the stream folds it: opened with the rest of the stream, or, created before secrets
 * went under the stream's key, still sealed with data key `initial` (opened only when it signs).
 */
export interface HeldSecret extends SecretLifetime {
  secret: string | null;
  sealedByInitial: string | null;
}

/** A secret as the endpoint view stores it: sealed, until a delivery signs with it. */
export interface StoredSecret extends SecretLifetime {
  sealed: string;
  sealedBy: 'stream' | 'initial';
}

export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export function newSigningSecret(): SigningSecret {
  return { kid: `wk_${newUlid()}`, secret: `whsec_${randomBytes(32).toString('base64')}` };
}

/** A secret sealed directly with the deployment data key `initial`, under its kid, as secrets were before every one went under its stream's key. */
const openSealedByInitial = (streamKeys: StreamKeys, kid: string, sealed: string): SigningSecret => ({
  kid,
  secret: webhookSealing.openSealedByInitial(sealed, `webhook-secret:${kid}`, streamKeys),
});

/** The folded secrets' values: opened already by the fold, or from data key `initial`. */
export const secretValues = ({ streamKeys }: { streamKeys: StreamKeys }, held: readonly HeldSecret[]): SigningSecret[] =>
  held.map((s) => (s.secret === null ? openSealedByInitial(streamKeys, s.kid, s.sealedByInitial!) : { kid: s.kid, secret: s.secret }));

/** The workspace's stored secrets, opened: by the stream's key through the sealing scheme, or from data key `initial`. */
export async function openSecrets({ streamKeys }: { streamKeys: StreamKeys }, db: Reader, workspaceId: string, stored: readonly StoredSecret[]): Promise<SigningSecret[]> {
  const open = stored.some((s) => s.sealedBy === 'stream') ? await streamKeys.opener(db, webhookStreamId(workspaceId)) : undefined;
  return stored.map((s) => {
    if (s.sealedBy === 'initial') return openSealedByInitial(streamKeys, s.kid, s.sealed);
    const opened = webhookSealing.openSealed(s.sealed, open!);
    if (erased(opened) || typeof opened.secret !== 'string') throw new Error(`the sealed value of signing secret ${s.kid} holds no secret`);
    return { kid: s.kid, secret: opened.secret };
  });
}

/** The secrets that sign at this instant, newest first: one, or two during a rotation's overlap. */
export function secretsInForce<T extends SecretLifetime>(secrets: readonly T[], at: Date): T[] {
  return secrets
    .filter((s) => s.retireAt === null || new Date(s.retireAt) > at)
    .sort((a, b) => (a.createdAt === b.createdAt ? b.kid.localeCompare(a.kid) : b.createdAt.localeCompare(a.createdAt)));
}
