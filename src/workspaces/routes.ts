import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ownerOf, requireOwner } from '../auth/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { setDisplayName } from './commands.js';
import { workspaceProfile } from './reads.js';
import { workspaceRequestSchema } from './requestSchemas.js';
import { workspaceOperations, workspaceResponseSchema } from './schemas.js';
import type { WorkspaceProfile } from './state.js';

const body = (workspaceId: string, profile: WorkspaceProfile) => ({ workspace_id: workspaceId, display_name: profile.displayName, updated_at: profile.updatedAt });

/** The credential's own workspace: PUT sets its display name, GET reads it. */
export async function workspaceRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  app.addSchema(workspaceResponseSchema);
  requireOwner(app, ctx);
  const security = [{ bearer: [] }];
  const response = { 200: { $ref: 'WorkspaceResponse#' } };

  app.put(
    '/v1/workspace',
    { schema: { ...workspaceOperations.setWorkspace, security, body: workspaceRequestSchema, response } },
    async (request: FastifyRequest<{ Body: { display_name: string } }>) => {
      const { workspaceId } = ownerOf(request);
      return body(workspaceId, await setDisplayName(ctx, workspaceId, request.body.display_name));
    },
  );

  app.get('/v1/workspace', { schema: { ...workspaceOperations.getWorkspace, security, response } }, async (request) => {
    const { workspaceId } = ownerOf(request);
    return body(workspaceId, await workspaceProfile(ctx.store.pool, workspaceId));
  });
}
