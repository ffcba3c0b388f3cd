import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testConfig } from '../support/config.js';
import { useTestApp } from '../support/lifecycle.js';
import { parseAnswer, type RawAnswer } from '../support/rawHttp.js';
import { busyCpu, freePort, serviceEnv, startServiceProcess, type ServiceProcess } from '../support/processes.js';
import { createSession, owner } from '../support/sessions.js';

/**
 * SIGTERM and SIGINT stop every role gracefully: no new connection, every request in flight
 * answered within the shutdown bound, background roles stopped, pools closed, the embedded
 * database (when there is one) stopped last, exit 0.
 */

const config = testConfig();
const { db, t } = useTestApp({ config });
const children: ServiceProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.child.exitCode === null && child.child.signalCode === null) await child.kill();
});

async function start(role: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const port = await freePort();
  const child = await startServiceProcess(role, { ...serviceEnv(config, db.url, port), ...env }, { waitForHttp: role === 'serve' || role === 'api' });
  children.push(child);
  return child;
}

const portOf = (child: ServiceProcess) => Number(new URL(child.baseUrl).port);

interface Exchange {
  /** Writes the rest of the request. */
  finish(): void;
  /** Resolves with the first response, or undefined if the connection closed without one. */
  answer: Promise<RawAnswer | undefined>;
}

/** Opens a connection and writes `request` but for its last `held` bytes, which finish() writes. */
async function startRequest(port: number, request: string, held: number): Promise<Exchange> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  // A reset connection ends like a closed one: with whatever arrived, perhaps nothing.
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(request.slice(0, request.length - held));
  return { finish: () => socket.write(request.slice(request.length - held)), answer: closed.then(() => parseAnswer(Buffer.concat(received))) };
}

function submission(token: string, index: number): string {
  const body = new URLSearchParams({
    client_event_id: `shutdown-burst-${String(index).padStart(4, '0')}`,
    surface_revision: '1',
    action_id: 'approve',
    'data.amount': String(index % 100),
  }).toString();
  return (
    `POST /s/${token} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
    `Sec-Fetch-Site: same-origin\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/** Waits until the process has written `text` `times` times (its log), or fails if it exits first. */
async function waitForOutput(service: ServiceProcess, text: string, times = 1): Promise<void> {
  while (service.output().split(text).length - 1 < times) {
    if (service.child.exitCode !== null) throw new Error(`exited before writing ${text}: ${service.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('SIGTERM during a burst of human submissions', () => {
  it('answers every request in flight, exits 0, and every accepted answer is readable afterwards', async () => {
    const sessions = await Promise.all(Array.from({ length: 24 }, () => createSession(t)));
    // The bound is far away: on a loaded machine the burst may take long, and is still answered.
    const service = await start('serve', { SVC_SHUTDOWN_TIMEOUT_MS: '50000', LOG_LEVEL: 'info' });

    // Every request is received (its route logged) but held in flight, its body unfinished, when the signal comes.
    const exchanges = await Promise.all(sessions.map((session, i) => startRequest(portOf(service), submission(session.token, i), 5)));
    await waitForOutput(service, '"path":"/s/[redacted]"', sessions.length);
    service.child.kill('SIGTERM');
    await waitForOutput(service, '"msg":"stopping"');
    for (const exchange of exchanges) exchange.finish();

    const answers = await Promise.all(exchanges.map((e) => e.answer));
    expect(await service.exited, service.output()).toEqual({ code: 0, signal: null });
    expect(answers.map((answer) => answer?.status)).toEqual(sessions.map(() => 200));
    for (const session of sessions) {
      const res = await t.app.inject({ url: `/v1/sessions/${session.id}`, headers: owner(t) });
      expect(res.json().responses, session.id).toHaveLength(1);
    }
  }, 60_000);
});

interface Outcome {
  /** The handshake completed: the connection reached the listener (perhaps only its accept queue). */
  connected: boolean;
  answer: RawAnswer | undefined;
  /** How the connection failed (ECONNREFUSED, ECONNRESET), if it did. */
  error?: string;
}

/**
 * A fresh connection that sends `request` as soon as it is open: `opened` settles once its
 * handshake is done or failed, `outcome` once it has closed, with what came back.
 */
function exchange(port: number, request: string): { opened: Promise<unknown>; outcome: Promise<Outcome> } {
  const socket = connect(port, '127.0.0.1');
  const received: Buffer[] = [];
  let connected = false;
  let error: string | undefined;
  socket.on('connect', () => {
    connected = true;
    socket.write(request);
  });
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
  const outcome = new Promise<Outcome>((resolve) =>
    socket.on('close', () => resolve({ connected, answer: parseAnswer(Buffer.concat(received)), ...(error ? { error } : {}) })),
  );
  return { opened: Promise.race([once(socket, 'connect'), outcome]), outcome };
}

describe('SIGTERM with the CPU busy, amid submissions on fresh connections', () => {
  it('answers every connection that reached the listener with a complete response, and exits 0', async () => {
    const sessions = await Promise.all(Array.from({ length: 48 }, () => createSession(t)));
    const service = await start('serve', { SVC_SHUTDOWN_TIMEOUT_MS: '50000' });
    // Far more runnable processes than cores: the service accepts late, connections queue.
    const load = busyCpu(8, 40_000);
    try {
      const send = (from: number, to: number) => sessions.slice(from, to).map((session, i) => exchange(portOf(service), submission(session.token, from + i)));
      // Half are open (their requests sent, most still waiting to be accepted) when the signal comes, half follow it.
      const before = send(0, 24);
      await Promise.all(before.map((e) => e.opened));
      service.child.kill('SIGTERM');
      const after = send(24, 48);
      const outcomes = await Promise.all([...before, ...after].map((e) => e.outcome));
      expect(await service.exited, service.output()).toEqual({ code: 0, signal: null });
      // A connection refused never reached the service; one that did must not be reset or left unanswered.
      const reached = outcomes.filter((outcome) => outcome.connected);
      expect(reached.length).toBeGreaterThanOrEqual(40);
      expect(reached.map((o) => o.answer?.status ?? o.error ?? 'closed unanswered')).toEqual(reached.map(() => 200));
      for (const [i, outcome] of outcomes.entries()) {
        if (!outcome.connected) continue;
        const res = await t.app.inject({ url: `/v1/sessions/${sessions[i]!.id}`, headers: owner(t) });
        expect(res.json().responses, sessions[i]!.id).toHaveLength(1);
      }
    } finally {
      await load.stop();
    }
  }, 120_000);
});

describe('each role stops on SIGTERM and SIGINT with exit 0', () => {
  it.each([
    ['api', 'SIGINT'],
    ['projector', 'SIGTERM'],
    ['dispatcher', 'SIGINT'],
    ['serve', 'SIGINT'],
  ] as const)('%s on %s', async (role, signal) => {
    const service = await start(role, { LOG_LEVEL: 'info' });
    await waitForOutput(service, '"msg":"started"');
    service.child.kill(signal);
    expect(await service.exited, service.output()).toEqual({ code: 0, signal: null });
    expect(service.output()).toContain('"msg":"stopped"');
  });

  it('is not ready from the signal on, and answers a connection that was opened before it but sent its request after', async () => {
    const service = await start('api', { SVC_SHUTDOWN_TIMEOUT_MS: '20000', LOG_LEVEL: 'info' });
    const live = 'GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n';
    // Accepted, and nothing sent yet: closing it as idle would leave its client without an answer.
    const opened = await startRequest(portOf(service), live, live.length);
    await waitForOutput(service, '"msg":"started"');
    service.child.kill('SIGTERM');
    await waitForOutput(service, '"msg":"stopping"');
    const ready = await fetch(`${service.baseUrl}/health/ready`);
    expect([ready.status, ready.headers.get('connection')]).toEqual([503, 'close']);
    opened.finish();
    const answer = await opened.answer;
    expect([answer?.status, answer?.headers.connection]).toEqual([200, 'close']);
    expect(await service.exited, service.output()).toEqual({ code: 0, signal: null });
  });

  it('an idle kept-alive connection does not hold the process open', async () => {
    const service = await start('api');
    const idle = connect(portOf(service), '127.0.0.1');
    await once(idle, 'connect');
    idle.write('GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n');
    await once(idle, 'data');
    service.child.kill('SIGTERM');
    expect(await service.exited, service.output()).toEqual({ code: 0, signal: null });
    idle.destroy();
  });

  it('a request still in flight when the bound (SVC_SHUTDOWN_TIMEOUT_MS) runs out is cut, and the process exits 0', async () => {
    const service = await start('api', { SVC_SHUTDOWN_TIMEOUT_MS: '200', LOG_LEVEL: 'info' });
    // Its body never ends: the request stays in flight far longer than the bound.
    const slow = await startRequest(
      portOf(service),
      `POST /v1/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${config.ownerKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"interaction":`,
      0,
    );
    await waitForOutput(service, '"path":"/v1/sessions"');
    service.child.kill('SIGTERM');
    expect(await service.exited, service.output()).toEqual({ code: 0, signal: null });
    expect(await slow.answer).toBeUndefined();
  });
});

describe('the embedded database', () => {
  it('is stopped last, after a graceful stop, and the process exits 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-embedded-'));
    // As root the cluster runs as a created user, which must be able to enter the folder.
    await chmod(dir, 0o755);
    try {
      const service = await start('serve', { DATABASE_URL: '', SVC_DATA_DIR: dir, LOG_LEVEL: 'info' });
      expect(existsSync(join(dir, 'pg', 'postmaster.pid'))).toBe(true);
      service.child.kill('SIGTERM');
      expect(await service.exited, service.output()).toEqual({ code: 0, signal: null });
      expect(service.output()).toContain('"msg":"stopped"');
      // PostgreSQL removes its pid file when it has shut down cleanly.
      expect(existsSync(join(dir, 'pg', 'postmaster.pid'))).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('a process that stops it ends on its own with exit 0; one that exits without stopping it still signals it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-embedded-'));
    await chmod(dir, 0o755);
    const run = async (then: string) => {
      const script = `const { startEmbeddedPostgres } = await import('./src/database/embedded.ts'); const pg = await startEmbeddedPostgres(${JSON.stringify(join(dir, 'pg'))}); ${then}`;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
      let errors = '';
      child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      const [code] = (await once(child, 'close')) as [number | null];
      return { code, errors };
    };
    try {
      expect(await run('await pg.stop();')).toEqual({ code: 0, errors: '' });
      expect(await run('process.exit(0);')).toEqual({ code: 0, errors: '' });
      for (let i = 0; i < 100 && existsSync(join(dir, 'pg', 'postmaster.pid')); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(existsSync(join(dir, 'pg', 'postmaster.pid'))).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('says why when its cluster will not start (another process runs it), rather than nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-embedded-'));
    await chmod(dir, 0o755);
    const pgDir = JSON.stringify(join(dir, 'pg'));
    const script =
      `const { startEmbeddedPostgres } = await import('./src/database/embedded.ts'); const running = await startEmbeddedPostgres(${pgDir}); ` +
      `const second = await startEmbeddedPostgres(${pgDir}).then(() => 'started', (error) => error.name + ': ' + error.message); ` +
      'await running.stop(); console.log(second);';
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let said = '';
      child.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()));
      const [code] = (await once(child, 'close')) as [number | null];
      expect(code).toBe(0);
      expect(said).toMatch(/^ConfigError: the embedded PostgreSQL in .* did not start: .*postmaster\.pid/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('is not even imported when DATABASE_URL is set: nothing of it hooks the process signals', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', "await import('./src/service.ts'); console.log(process.listenerCount('SIGTERM'), process.listenerCount('beforeExit'));"],
      { env: { ...process.env, NODE_ENV: 'production', DATABASE_URL: db.url }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await once(child, 'close');
    expect(out.trim().split('\n')[0]).toBe('0 0');
  });
});

describe('npm start', () => {
  it('delivers SIGTERM to the service, which stops gracefully', async () => {
    const port = await freePort();
    const npm = spawn('npm', ['start', '--silent', '--', 'api'], {
      env: { ...process.env, ...serviceEnv(config, db.url, port), LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = once(npm, 'exit');
    try {
      while (!(await fetch(`http://127.0.0.1:${port}/health/live`).then((r) => r.ok, () => false))) {
        if (npm.exitCode !== null) throw new Error(output);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      npm.kill('SIGTERM');
      expect(await exited, output).toEqual([0, null]);
      expect(output).toContain('"msg":"stopped"');
    } finally {
      if (npm.exitCode === null) npm.kill('SIGKILL');
    }
  });
});
