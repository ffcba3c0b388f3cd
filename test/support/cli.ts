import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

/** The service's command line, run as an operator or auditor runs it: `node --import tsx src/main.ts ...`. */

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command with exactly `env` (nothing inherited but PATH), its stdout captured, or written
 * to `stdoutFile` when one is given.
 */
export async function runCli(args: string[], env: Record<string, string>, options: { stdoutFile?: string } = {}): Promise<CliResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const file = options.stdoutFile === undefined ? undefined : createWriteStream(options.stdoutFile);
  if (file) child.stdout.pipe(file);
  else child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  if (file && !file.closed) await once(file, 'close');
  return { code: code ?? -1, stdout, stderr };
}
