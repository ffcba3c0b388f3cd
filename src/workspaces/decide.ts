import { WORKSPACE_NAMED, type WorkspaceNamed } from './events.js';
import type { WorkspaceProfile } from './state.js';

/**
 * Setting the display name. The same name again changes nothing and records nothing, so a PUT
 * repeated by a client's retry leaves one event in the log. Pure: no refusal is possible once the
 * name passed the request schema.
 */
export function decideDisplayName(profile: WorkspaceProfile, command: { displayName: string; now: Date }): { events: WorkspaceNamed[] } {
  if (profile.displayName === command.displayName) return { events: [] };
  return { events: [{ type: WORKSPACE_NAMED, at: command.now.toISOString(), display_name: command.displayName }] };
}
