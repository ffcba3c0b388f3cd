import type { StreamKeys, UnitOfWork } from '../../eventstore/index.js';
import * as sql from './sql.js';

/**
 * A caller's reference for a Session (client_reference_id), as the view stores it: a keyed digest
 * of the workspace and the reference, never the reference itself, so a dump of the database reads
 * no reference and cannot tell that two workspaces chose the same one. The digest key does not
 * change with a data key (docs/architecture.md, "Data keys"), so the same reference always finds
 * the same row.
 */
export const clientReferenceDigest = (keys: Pick<StreamKeys, 'deploymentKey'>, workspaceId: string, reference: string): string =>
  keys.deploymentKey.digest('client-reference', `${workspaceId}\n${reference}`);

/** A create whose reference a live Session of the workspace holds: that Session, never its link. */
export type ReferenceRefusal = { refused: 'client_reference_in_use'; sessionId: string };

/**
 * Whether a live Session of the workspace holds the reference, decided where the new Session will
 * be appended: creates naming one reference take its turn (an advisory lock for the rest of the
 * transaction), so the second reads what the first committed and is refused, never left to the
 * unique index's error. The index (migration 0251) still holds it against anything that skips the turn.
 */
export async function referenceHolder(uow: UnitOfWork, keys: Pick<StreamKeys, 'deploymentKey'>, workspaceId: string, reference: string): Promise<ReferenceRefusal | undefined> {
  const digest = clientReferenceDigest(keys, workspaceId, reference);
  await uow.lockStream(`client-reference-${digest}`);
  const { rows } = await uow.query<{ session_id: string }>(sql.SESSION_BY_REFERENCE, [workspaceId, digest]);
  return rows[0] && { refused: 'client_reference_in_use', sessionId: rows[0].session_id };
}
