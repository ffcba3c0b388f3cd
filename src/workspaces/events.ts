/**
 * A workspace's own stream (`workspace-<workspace id>`): how the workspace presents itself to the
 * people it asks. Nothing in it is sealed: a display name is what every responder is shown.
 */

export const WORKSPACE_NAMED = 'workspace.named';

export const WORKSPACE_EVENT_TYPES = [WORKSPACE_NAMED] as const;

const WORKSPACE_STREAM_PREFIX = 'workspace-';
export const workspaceStreamId = (workspaceId: string): string => `${WORKSPACE_STREAM_PREFIX}${workspaceId}`;
export const workspaceOfStream = (streamId: string): string => streamId.slice(WORKSPACE_STREAM_PREFIX.length);

/** The owner or a developer key set the name the workspace's people see as who asks. */
export interface WorkspaceNamed {
  type: typeof WORKSPACE_NAMED;
  at: string;
  display_name: string;
}

export type WorkspaceEvent = WorkspaceNamed;
