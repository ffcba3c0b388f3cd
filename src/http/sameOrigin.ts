import type { FastifyRequest } from 'fastify';

/**
 * Whether a form post comes from one of this service's own pages: Fetch Metadata says so, or,
 * from a browser that sends none, the Origin is the public origin.
 */
export function sameOrigin(request: FastifyRequest, publicOrigin: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  return request.headers.origin === publicOrigin;
}
