import type { Decider } from '../../eventstore/index.js';
import type { WorkspaceEvent } from './events.js';

export interface WorkspaceProfile {
  displayName: string | null;
  /** When the display name was last set; null before it ever was. */
  updatedAt: string | null;
}

export const UNNAMED: WorkspaceProfile = { displayName: null, updatedAt: null };

const evolve = (_state: WorkspaceProfile, event: WorkspaceEvent): WorkspaceProfile => ({ displayName: event.display_name, updatedAt: event.at });

/** A workspace's stream: nothing in it is sealed. */
export const workspaceDecider: Decider<WorkspaceProfile, WorkspaceEvent> = { initialState: UNNAMED, evolve };
