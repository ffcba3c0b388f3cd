import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How a server stops without resetting a connection. The kernel completes a client's handshake
 * before the process accepts the connection, and a listener closed while connections wait in that
 * queue resets every one of them; with the CPU busy the process accepts late and the queue is
 * long. Node also closes, as idle, an accepted connection whose request it has not read yet. So a
 * stop first drains: readiness answers 503 (a proxy stops sending), every answer closes its
 * connection, and the listener stays open, accepting and answering, until a quiet spell in which
 * nothing was accepted and every accepted connection has begun its request, or the drain's limit.
 */

/** Long enough for a burst under way to show itself, short enough not to slow a stop. */
const QUIET_MS = 250;

export class Drain {
  /** Once set, readiness answers 503 and every answer closes its connection. */
  draining = false;
  private accepted = 0;
  /** Accepted connections that have not begun a request yet. */
  private readonly unstarted = new Set<Socket>();

  constructor(server: Server) {
    server.on('connection', (socket: Socket) => {
      this.accepted++;
      this.unstarted.add(socket);
      socket.once('close', () => this.unstarted.delete(socket));
    });
    server.on('request', (request: { socket: Socket }) => this.unstarted.delete(request.socket));
  }

  /** Starts draining and resolves when the listener may close without losing a connection, or after `limitMs`. */
  async settle(limitMs: number): Promise<void> {
    this.draining = true;
    const until = performance.now() + limitMs;
    for (;;) {
      const seen = this.accepted;
      await sleep(Math.max(0, Math.min(QUIET_MS, until - performance.now())));
      // An immediate runs after the event loop's poll for I/O, in which whatever waited to be accepted was.
      await new Promise((resolve) => setImmediate(resolve));
      if ((this.accepted === seen && this.unstarted.size === 0) || performance.now() >= until) return;
    }
  }
}

const drains = new WeakMap<Server, Drain>();

/** The server's drain, made (and watching its connections) at the first call: call it as the server is made. */
export function drainOf(server: Server): Drain {
  let drain = drains.get(server);
  if (!drain) {
    drain = new Drain(server);
    drains.set(server, drain);
  }
  return drain;
}
