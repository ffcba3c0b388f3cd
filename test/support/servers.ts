import type { Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** A test double's (or a bench's) server on loopback, listening on a free port: its port once it listens. */
export async function listenOnLoopback(server: HttpServer | HttpsServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Stops a test double's server at once: its open connections (keep-alive ones too) are cut, not waited for. */
export const closeNow = (server: HttpServer | HttpsServer): Promise<void> =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
