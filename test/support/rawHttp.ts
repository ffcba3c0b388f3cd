import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** HTTP/1.1 over a plain socket, byte for byte, for requests no HTTP client would send. */

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawExchange {
  /** The first response read, if any arrived before the connection closed. */
  answer: RawAnswer | undefined;
  /** Every byte received. */
  received: string;
  /** False when the client gave up waiting (IDLE_LIMIT_MS) and closed the connection itself. */
  closedByServer: boolean;
}

export function portOf(app: FastifyInstance): number {
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the app is not listening on a port');
  return address.port;
}

/** The first response in `bytes`, or undefined while its head or body is incomplete. */
export function parseAnswer(bytes: Buffer): RawAnswer | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
  const body = bytes.subarray(end + 4);
  if (length !== undefined && body.length < length) return undefined;
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.subarray(0, length).toString('utf8') };
}

/** How long a test waits for the server to say or do anything before it gives up on it. */
const IDLE_LIMIT_MS = 30_000;

/**
 * Writes `chunks` on a new connection (each after the previous is flushed) and reads until the
 * server closes it, or until nothing has arrived for IDLE_LIMIT_MS (then the socket is destroyed,
 * and the exchange says what had arrived: a test that needs an answer fails on its absence).
 */
export function exchange(port: number, chunks: Array<string | Buffer>): Promise<RawExchange> {
  return new Promise((resolve) => {
    const received: Buffer[] = [];
    const socket: Socket = connect(port, '127.0.0.1');
    let gaveUp = false;
    const done = () => {
      const bytes = Buffer.concat(received);
      resolve({ answer: parseAnswer(bytes), received: bytes.toString('latin1'), closedByServer: !gaveUp });
    };
    socket.setTimeout(IDLE_LIMIT_MS, () => {
      gaveUp = true;
      socket.destroy();
    });
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('close', done);
    socket.on('error', () => undefined);
    socket.on('connect', async () => {
      for (const chunk of chunks) await new Promise<void>((written) => socket.write(chunk, () => written()));
    });
  });
}
