import type { Reader } from '../eventstore/index.js';

/** Who is calling an owner route: the workspace it acts in and the credential (for scoping). */
export interface OwnerPrincipal {
  workspaceId: string;
  /** Stable, non-secret id of the credential; idempotency records are scoped to it. */
  credentialId: string;
  kind: 'owner_key' | 'developer_key';
  /** Owner keys hold links for 720 h; developer keys (free plan) for 168 h. */
  linkLifetimeHours: number;
  /** How long a Session is kept after it ends before it is purged: 720 h or 168 h. */
  retentionHours: number;
  /**
   * Whether this credential may read, but never change, a Session of another workspace (a
   * developer key reads the Sessions of the trials its account claimed, each while its result is
   * available). Absent: it reads its own workspace's Sessions only.
   */
  mayRead?: (db: Reader, session: SessionOfWorkspace) => Promise<boolean>;
}

/** A Session as far as access goes: its id and the workspace it belongs to. */
export interface SessionOfWorkspace {
  id: string;
  workspaceId: string;
}
