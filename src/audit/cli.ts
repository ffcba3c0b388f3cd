import { readFile } from 'node:fs/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { ServiceContext } from '../serviceContext.js';
import { auditExport, formatProblem } from './auditor.js';
import { writeCheckpoint, type CheckpointDocument } from './checkpoint.js';
import { exportTo } from './export.js';
import { loadKeys } from './keySet.js';
import { CommandRefused, UsageError } from '../commandLine.js';

/**
 * The auditor's commands. Each returns its exit code: 0 done, 1 failed (or the audit found
 * problems), 2 a usage error, printed with its usage.
 */

export const AUDIT_USAGE = `  export [--session ID] [--decrypt]   the log (or one Session's streams) as JSON Lines on stdout
  audit FILE --keys JWKS [--checkpoint FILE] [--issuer ORIGIN]
                      check an export offline: every chain, checkpoint and (opened) receipt;
                      JWKS is a file or the served /.well-known/svc-receipt-keys.json URL
  checkpoint          sign a log checkpoint now and print it as {"checkpoint": "<JWS>"}`;

function usage(problem: string): never {
  throw new UsageError(problem);
}

type Parsed<T> = { ok: true; values: T; positionals: string[] } | { ok: false; problem: string };

function parse<T>(args: string[], options: ParseArgsConfig['options']): Parsed<T> {
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { ok: true, values: values as T, positionals };
  } catch (error) {
    return { ok: false, problem: (error as Error).message };
  }
}

export async function exportCommand(ctx: Pick<ServiceContext, 'store' | 'streamKeys'>, args: string[]): Promise<number> {
  const parsed = parse<{ session?: string; decrypt?: boolean }>(args, { session: { type: 'string' }, decrypt: { type: 'boolean' } });
  if (!parsed.ok) return usage(parsed.problem);
  if (parsed.positionals.length > 0) return usage(`export takes no ${parsed.positionals[0]}`);
  await exportTo(ctx, { sessionId: parsed.values.session, decrypt: parsed.values.decrypt ?? false }, process.stdout);
  return 0;
}

/** Runs with no database and no service: everything it needs is in the files it is given. */
export async function auditCommand(args: string[]): Promise<number> {
  const parsed = parse<{ keys?: string; checkpoint?: string; issuer?: string }>(args, {
    keys: { type: 'string' },
    checkpoint: { type: 'string' },
    issuer: { type: 'string' },
  });
  if (!parsed.ok) return usage(parsed.problem);
  const [file, ...extra] = parsed.positionals;
  if (file === undefined) return usage('audit needs the export FILE');
  if (extra.length > 0) return usage(`audit takes one FILE, not ${extra.join(' ')}`);
  if (parsed.values.keys === undefined) return usage('audit needs --keys JWKS');
  const keys = await loadKeys(parsed.values.keys);
  const checkpoint = parsed.values.checkpoint === undefined ? undefined : await keptCheckpoint(parsed.values.checkpoint);
  const report = await auditExport({ file, keys, checkpoint, issuer: parsed.values.issuer });
  for (const problem of report.problems) console.log(formatProblem(problem));
  const { verified, unopened, absent } = report.receipts;
  console.log(
    `audited ${report.events} events in ${report.streams} streams: ${report.problems.length === 0 ? 'no problem' : `${report.problems.length} problems`}; ` +
      `${report.checkpoints} checkpoints checked${checkpoint === undefined ? '' : ' (and the kept one)'}; ` +
      `${verified} receipts verified (issuer ${report.issuer ?? 'unknown'}), ${unopened} could not be opened (sealed or erased)` +
      (absent > 0 ? `, ${absent} responses have none` : ''),
  );
  return report.problems.length === 0 ? 0 : 1;
}

/** A checkpoint the auditor kept: the JSON the service serves, or the bare JWS. */
async function keptCheckpoint(path: string): Promise<string> {
  const text = (await readFile(path, 'utf8')).trim();
  if (!text.startsWith('{')) return text;
  const checkpoint = (JSON.parse(text) as Partial<CheckpointDocument>).checkpoint;
  if (typeof checkpoint !== 'string') throw new Error(`${path} holds no "checkpoint"`);
  return checkpoint;
}

export async function checkpointCommand(ctx: Pick<ServiceContext, 'clock' | 'config' | 'receiptKeys' | 'store'>, args: string[]): Promise<number> {
  if (args.length > 0) return usage(`checkpoint takes no ${args[0]}`);
  const jws = await writeCheckpoint(ctx, { notWithinMs: 0, wait: true });
  if (jws === undefined) throw new CommandRefused('another checkpointer wrote a checkpoint at the same moment; run it again');
  console.log(JSON.stringify({ checkpoint: jws }));
  return 0;
}
