import type { FastifyRequest } from 'fastify';
import type { RefusalAnswer } from './refusal.js';

/**
 * Whether a form post comes from one of this service's own pages: Fetch Metadata says so, or,
 * from a browser that sends none, the Origin is the public origin.
 */
export function sameOrigin(request: FastifyRequest, publicOrigin: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  return request.headers.origin === publicOrigin;
}

/** The refusal of a form post from elsewhere, the same on every page that takes one. */
export const NOT_SAME_ORIGIN: RefusalAnswer = { status: 403, code: 'ACTION_NOT_ALLOWED', message: "This form can only be sent from the service's own pages." };
