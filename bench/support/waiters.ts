import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/**
 * Waiting agents in a process of their own (bench/support/waitersProcess.ts), so that the sockets
 * and requests of thousands of waiters weigh on that process, not on the service measured.
 */

export type WaiterMessage =
  | { kind: 'hold'; group: string; origin: string; paths: string[]; headers: Record<string, string> }
  | { kind: 'drop'; group: string }
  | { kind: 'post'; origin: string; path: string; headers: Record<string, string>; body: string }
  | { kind: 'exit' };

export type WaiterReply =
  | { kind: 'answered'; group: string; answered: Array<{ at: number; status: number }> }
  | { kind: 'posted'; status: number; body: string };

export interface Waiters {
  /** Sends a GET for each path, held open; resolves with every answer once all have come. */
  hold(group: string, origin: string, paths: string[], headers: Record<string, string>): Promise<Array<{ at: number; status: number }>>;
  /** Closes the group's sockets, as agents that go away. */
  drop(group: string): void;
  post(origin: string, request: { path: string; headers: Record<string, string>; body: string }): Promise<void>;
  close(): Promise<void>;
}

export function startWaiters(): Waiters {
  const child: ChildProcess = fork(fileURLToPath(new URL('./waitersProcess.ts', import.meta.url)), [], { execArgv: ['--import', 'tsx'] });
  const groups = new Map<string, (answered: Array<{ at: number; status: number }>) => void>();
  let posted: ((reply: { status: number; body: string }) => void) | undefined;
  child.on('message', (reply: WaiterReply) => {
    if (reply.kind === 'answered') groups.get(reply.group)?.(reply.answered);
    else posted?.(reply);
  });
  const send = (message: WaiterMessage) => child.send(message);
  return {
    hold(group, origin, paths, headers) {
      const answered = new Promise<Array<{ at: number; status: number }>>((resolve) => groups.set(group, resolve));
      send({ kind: 'hold', group, origin, paths, headers });
      return answered;
    },
    drop: (group) => send({ kind: 'drop', group }),
    async post(origin, request) {
      const reply = new Promise<{ status: number; body: string }>((resolve) => (posted = resolve));
      send({ kind: 'post', origin, ...request });
      const { status, body } = await reply;
      if (status !== 200) throw new Error(`submission: ${status} ${body.slice(0, 200)}`);
    },
    async close() {
      send({ kind: 'exit' });
      await once(child, 'exit');
    },
  };
}
