import type { FastifyInstance } from 'fastify';

/** Node's header record (a name may repeat as an array) as a fetch Headers. */
export function headersOf(record: Record<string, string | string[] | number | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(record)) for (const one of [value ?? []].flat()) headers.append(name, String(one));
  return headers;
}

/**
 * A fetch that sends each request into `app` itself (fastify's inject: the same routing, hooks,
 * credentials, quotas and error envelope as a socket), for the MCP tools the service serves at
 * /mcp, which call the API through the typed client as the stdio server does over the network.
 * Only what the client sends is supported: a URL of the service, string bodies, plain headers, a signal.
 */
export function injectedFetch(app: FastifyInstance, remoteAddress: string): typeof fetch {
  return async (input, init) => {
    init?.signal?.throwIfAborted();
    const url = new URL(input instanceof Request ? input.url : String(input));
    const reply = await app.inject({
      method: (init?.method ?? 'GET') as 'GET',
      url: `${url.pathname}${url.search}`,
      headers: Object.fromEntries(new Headers(init?.headers)),
      ...(typeof init?.body === 'string' ? { payload: init.body } : {}),
      remoteAddress,
      // The tool's signal aborts when the agent goes away (routes.ts closes its server): the
      // injected request is then destroyed like a socket that closed, which ends a held read at once.
      ...(init?.signal ? { signal: init.signal } : {}),
    });
    const headers = headersOf(reply.headers);
    // A 204 or 304 has no body, and Response refuses one (even empty) for them.
    const body = reply.statusCode === 204 || reply.statusCode === 304 ? null : reply.body;
    return new Response(body, { status: reply.statusCode, headers });
  };
}
