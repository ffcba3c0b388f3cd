import { createServer, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import type { ClientOptions, HandoffClient } from '../../src/client/index.js';
import type { TestApp } from '../support/app.js';
import { made } from '../support/lifecycle.js';
import { closeNow, listenOnLoopback } from '../support/servers.js';
import { clientOf } from './support.js';

/**
 * A real HTTP gateway in front of the service, as a deployment has one: it forwards every request
 * and records what crossed it, with the number of body bytes each answer carried. It can be told
 * to misbehave the way gateways do: answer a 5xx page of its own (before or after forwarding the
 * request), or drop the connection after forwarding it.
 */

export interface Exchange {
  method: string;
  path: string;
  requestHeaders: Record<string, string>;
  requestBody: string;
  /** What the client got: the service's status, or the fault's. */
  status: number;
  /** Body bytes sent to the client. */
  bodyBytes: number;
}

export type Fault =
  /** A 502 page of the gateway's own; the service never sees the request. */
  | 'page_before_forward'
  /** The request reaches the service, then the client gets a 504 page instead of its answer. */
  | 'page_after_forward'
  /** The request reaches the service, then the connection to the client drops. */
  | 'drop_after_forward'
  /** A 404 page of the gateway's own, as for a path it does not route. */
  | 'not_found_page';

export interface Gateway {
  url: string;
  exchanges: Exchange[];
  /** The exchanges of one method and path, in the order they crossed. */
  sent(method: string, path: string): Exchange[];
  /** The next `count` requests for which `matches` holds meet `fault`. */
  fail(fault: Fault, matches: (method: string, path: string) => boolean, count?: number): void;
  /** Resolves once `count` exchanges satisfy `matches`. */
  seen(matches: (exchange: Exchange) => boolean, count: number): Promise<void>;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host', 'content-encoding']);

const GATEWAY_PAGE = '<html><body><h1>Bad gateway</h1></body></html>';

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

export async function startGateway(target: string): Promise<Gateway> {
  const exchanges: Exchange[] = [];
  const faults: Array<{ fault: Fault; matches: (method: string, path: string) => boolean; left: number }> = [];
  const waiters: Array<{ matches: (exchange: Exchange) => boolean; count: number; resolve: () => void }> = [];

  const record = (exchange: Exchange) => {
    exchanges.push(exchange);
    for (const waiter of [...waiters]) {
      if (exchanges.filter(waiter.matches).length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };

  const takeFault = (method: string, path: string): Fault | undefined => {
    const found = faults.find((f) => f.left > 0 && f.matches(method, path));
    if (found) found.left--;
    return found?.fault;
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const method = req.method ?? 'GET';
        const path = req.url ?? '/';
        const requestHeaders = headersOf(req);
        const requestBody = Buffer.concat(chunks).toString('utf8');
        const seen = { method, path, requestHeaders, requestBody };
        const fault = takeFault(method, path);
        const page = (status: number) => {
          res.writeHead(status, { 'content-type': 'text/html' });
          res.end(GATEWAY_PAGE);
          record({ ...seen, status, bodyBytes: Buffer.byteLength(GATEWAY_PAGE) });
        };
        if (fault === 'page_before_forward') return page(502);
        if (fault === 'not_found_page') return page(404);
        const answer = await fetch(`${target}${path}`, {
          method,
          headers: requestHeaders,
          body: requestBody === '' ? undefined : requestBody,
          redirect: 'manual',
        });
        const body = Buffer.from(await answer.arrayBuffer());
        if (fault === 'page_after_forward') return page(504);
        if (fault === 'drop_after_forward') {
          record({ ...seen, status: 0, bodyBytes: 0 });
          return res.socket?.destroy();
        }
        const headers: Record<string, string> = {};
        answer.headers.forEach((value, name) => {
          if (!HOP_BY_HOP.has(name)) headers[name] = value;
        });
        res.writeHead(answer.status, headers);
        res.end(body);
        record({ ...seen, status: answer.status, bodyBytes: body.length });
      })().catch(() => res.destroy());
    });
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    sent: (method, path) => exchanges.filter((e) => e.method === method && e.path === path),
    fail: (fault, matches, count = 1) => {
      faults.push({ fault, matches, left: count });
    },
    seen: (matches, count) =>
      exchanges.filter(matches).length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ matches, count, resolve })),
    close: () => closeNow(server),
  };
}

/**
 * A gateway in front of the test app for the file (or the describe block it is called in), made
 * before its tests and closed after them, with a client of the app's owner key through it.
 */
export function useGateway(t: TestApp, options: Partial<ClientOptions> = {}): { readonly gateway: Gateway; readonly client: HandoffClient } {
  let gateway: Gateway | undefined;
  let client: HandoffClient | undefined;
  beforeAll(async () => {
    gateway = await startGateway(t.ctx.config.publicOrigin);
    client = clientOf(t, { baseUrl: gateway.url, ...options });
  });
  afterAll(async () => {
    await gateway?.close();
  });
  return {
    get gateway() {
      return made(gateway);
    },
    get client() {
      return made(client);
    },
  };
}
