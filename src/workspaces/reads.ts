import type { Reader } from '../../eventstore/index.js';
import * as sql from './sql.js';
import { UNNAMED, type WorkspaceProfile } from './state.js';

/** A workspace's profile as its projection holds it; unnamed when it never set a name. */
export async function workspaceProfile(db: Reader, workspaceId: string): Promise<WorkspaceProfile> {
  const { rows } = await db.query<{ display_name: string; updated_at: Date }>(sql.PROFILE, [workspaceId]);
  const row = rows[0];
  return row ? { displayName: row.display_name, updatedAt: row.updated_at.toISOString() } : UNNAMED;
}

/** Who asks, as the people a workspace asks are told (the human page, notification mail); null when unnamed. */
export async function workspaceDisplayName(db: Reader, workspaceId: string): Promise<string | null> {
  return (await workspaceProfile(db, workspaceId)).displayName;
}
