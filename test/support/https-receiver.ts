import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { OPENSSL } from './prerequisites.js';
import { closeNow, listenOnLoopback } from './servers.js';

/**
 * A real HTTPS webhook receiver on loopback, with a certificate authority made for the test run by
 * the openssl CLI. The service trusts that authority through NODE_EXTRA_CA_CERTS, as Node does for
 * any extra authority: a child process gets it in its environment; the test process sets it before
 * building the service's egress (which reads it when built, see src/webhooks/egress.ts).
 */

export interface TestAuthority {
  /** PEM file of the authority: the value for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  key: Buffer;
  cert: Buffer;
  remove(): void;
}

/** The names the receiver's certificate is valid for. */
export const RECEIVER_HOSTNAME = 'hooks.example.test';

export function createTestAuthority(): TestAuthority {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-ca-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync(OPENSSL, args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '3', '-subj', '/CN=svc test authority',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', ...ec, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(file('server.ext'), [
    `subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:${RECEIVER_HOSTNAME}`,
    'basicConstraints=CA:FALSE',
    'keyUsage=digitalSignature',
    'extendedKeyUsage=serverAuth',
  ].join('\n'));
  openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial',
    '-out', file('server.pem'), '-days', '3', '-extfile', file('server.ext'));
  return {
    caFile: file('ca.pem'),
    key: readFileSync(file('server.key')),
    cert: readFileSync(file('server.pem')),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** Answers one request; the default answers 200 `{}`. It may hold the request as long as it likes. */
export type Responder = (request: ReceivedRequest, res: ServerResponse, req: IncomingMessage) => void | Promise<void>;

export interface Receiver {
  /** https://127.0.0.1:<port>/hook */
  url: string;
  port: number;
  /** Every request received, in arrival order. */
  requests: ReceivedRequest[];
  respond(responder: Responder): void;
  /** Resolves once `count` requests have arrived. */
  received(count: number): Promise<void>;
  close(): Promise<void>;
}

export const answer = (status: number, body = '{}', headers: Record<string, string> = {}): Responder => (_request, res) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
};

export async function startReceiver(authority: TestAuthority): Promise<Receiver> {
  let responder: Responder = answer(200);
  const requests: ReceivedRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const server: Server = createServer({ key: authority.key, cert: authority.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : (value ?? '');
      const request = { method: req.method ?? '', path: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(request);
      for (const w of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      void Promise.resolve(responder(request, res, req)).catch(() => res.destroy());
    });
  });
  const port = await listenOnLoopback(server);
  return {
    url: `https://127.0.0.1:${port}/hook`,
    port,
    requests,
    respond: (next) => {
      responder = next;
    },
    received: (count) =>
      requests.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve })),
    close: () => closeNow(server),
  };
}

/**
 * Verifies a received webhook with the `standardwebhooks` package, as a customer would, at the
 * instant `at` (the library checks the timestamp against Date.now; a test clock may be elsewhere).
 */
export function verifyWebhook(secret: string, request: ReceivedRequest, at: Date = new Date()): unknown {
  const realNow = Date.now;
  Date.now = () => at.getTime();
  try {
    return new Webhook(secret).verify(request.body, request.headers);
  } finally {
    Date.now = realNow;
  }
}
