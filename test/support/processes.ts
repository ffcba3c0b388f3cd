import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { Config } from '../../src/config.js';
import { freePort } from '../../src/database/embedded.js';

export { freePort };

/** Real service processes (`node --import tsx src/main.ts <role>`), as an operator runs them. */

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServiceProcess {
  child: ChildProcess;
  baseUrl: string;
  output(): string;
  /** How the process ended, once it has. */
  exited: Promise<Exit>;
  /** SIGKILL: no shutdown hook runs, as in a crash. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** The environment that makes a process run with exactly this test configuration. */
export function serviceEnv(config: Config, databaseUrl: string, port: number): Record<string, string> {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    HOST: '127.0.0.1',
    PORT: String(port),
    SVC_PUBLIC_ORIGIN: config.publicOrigin,
    SVC_OWNER_KEY: config.ownerKey ?? '',
    SVC_RECEIPT_KEYS: config.receiptKeys ?? '',
    SVC_DATA_KEYS: config.dataKeys ?? '',
    SVC_METRICS_TOKEN: config.metricsToken ?? '',
    SVC_GIT_SHA: config.build.gitSha ?? '',
    SVC_BUILD_ID: config.build.buildId ?? '',
    SVC_BUILD_TIME: config.build.buildTime ?? '',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
  };
}

async function waitUntilLive(baseUrl: string, child: ChildProcess, output: () => string): Promise<void> {
  // A minute: on a loaded machine loading the TypeScript alone takes tens of seconds.
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}: ${output()}`);
    try {
      if ((await fetch(`${baseUrl}/health/live`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`service did not start: ${output()}`);
}

/** `port`: where it serves HTTP, when not PORT (a background role's SVC_METRICS_PORT). */
export async function startServiceProcess(
  role: string,
  env: Record<string, string>,
  options: { waitForHttp?: boolean; port?: number } = {},
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', role], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = `http://127.0.0.1:${options.port ?? env.PORT}`;
  if (options.waitForHttp !== false) await waitUntilLive(baseUrl, child, () => output);
  const exited: Promise<Exit> =
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve({ code: child.exitCode, signal: child.signalCode })
      : once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  return {
    child,
    baseUrl,
    output: () => output,
    exited,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface CommandResult extends Exit {
  stdout: string;
  stderr: string;
}

/**
 * Runs `src/main.ts` with these arguments to its end, as an operator's script would. A command
 * still running after `limitMs` is killed (the result then shows SIGKILL), so that a command that
 * never ends fails its test instead of outliving it.
 */
export async function runCommand(args: string[], env: Record<string, string> = {}, limitMs = 30_000): Promise<CommandResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const limit = setTimeout(() => child.kill('SIGKILL'), limitMs);
  child.on('exit', () => clearTimeout(limit));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  return { code, signal, stdout, stderr };
}

export interface BusyCpu {
  stop(): Promise<void>;
}

/**
 * `count` processes that spin on the CPU for `ms` at most (each ends itself then, should the test
 * not stop them first): a machine under heavy load, for what only goes wrong when processes wait
 * for a core.
 */
export function busyCpu(count: number, ms: number): BusyCpu {
  const spin = `const end = Date.now() + ${ms}; while (Date.now() < end);`;
  const children = Array.from({ length: count }, () => spawn(process.execPath, ['-e', spin], { stdio: 'ignore' }));
  return {
    async stop() {
      await Promise.all(
        children.map(async (child) => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = once(child, 'exit');
          child.kill('SIGKILL');
          await exited;
        }),
      );
    },
  };
}
