import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { WaiterMessage, WaiterReply } from './waiters.js';

/**
 * The waiting agents' process (see waiters.ts): holds groups of requests open against the
 * service, each on a socket of its own, and reports when each answered (epoch milliseconds, with
 * sub-millisecond resolution) with its status; posts the submissions that answer them.
 */

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const groups = new Map<string, http.ClientRequest[]>();
const failures = new Map<string, number>();
setInterval(() => failures.size > 0 && console.error('waiters: failures', JSON.stringify([...failures])), 5_000).unref();
const now = (): number => performance.timeOrigin + performance.now();
const send = (reply: WaiterReply) => process.send!(reply);

process.on('message', (message: WaiterMessage) => {
  if (message.kind === 'hold') {
    const answered: Array<{ at: number; status: number }> = [];
    const requests = message.paths.map((path) => {
      const request = http.get(`${message.origin}${path}`, { agent, headers: message.headers }, (response) => {
        response.resume();
        response.on('end', () => {
          answered.push({ at: now(), status: response.statusCode ?? 0 });
          if (answered.length === message.paths.length) send({ kind: 'answered', group: message.group, answered });
        });
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        // A group dropped on purpose ends in resets: not a failure.
        if (!groups.has(message.group)) return;
        failures.set(error.code ?? error.message, (failures.get(error.code ?? error.message) ?? 0) + 1);
        answered.push({ at: now(), status: 0 });
        if (answered.length === message.paths.length) send({ kind: 'answered', group: message.group, answered });
      });
      return request;
    });
    groups.set(message.group, requests);
  } else if (message.kind === 'drop') {
    const dropped = groups.get(message.group) ?? [];
    groups.delete(message.group);
    for (const request of dropped) request.destroy();
  } else if (message.kind === 'post') {
    void fetch(`${message.origin}${message.path}`, { method: 'POST', headers: message.headers, body: message.body }).then(
      async (response) => send({ kind: 'posted', status: response.status, body: response.status === 200 ? '' : await response.text() }),
      (error: Error) => send({ kind: 'posted', status: 0, body: error.message }),
    );
  } else process.exit(0);
});
