import { fileURLToPath } from 'node:url';
import type { Capability } from '../capability.js';
import { workspacesProjection } from './projection.js';
import { workspaceRoutes } from './routes.js';

/**
 * Workspaces as the people they ask see them: a display name, set by the owner key or a developer
 * key (PUT /v1/workspace), recorded on the workspace's own stream. docs/responders.md.
 */

/** Who asks: what the human page and notification mail show for a workspace (null when unnamed). */
export { workspaceDisplayName } from './reads.js';

export const workspaces: Capability = {
  name: 'workspaces',
  contract: { tag: { name: 'Workspace', description: "The workspace's display name, as the mails to its responders name it." } },
  routes: workspaceRoutes,
  // Its table: each named workspace's profile.
  migrations: fileURLToPath(new URL('./migrations/', import.meta.url)),
  inlineProjections: () => [workspacesProjection],
};
