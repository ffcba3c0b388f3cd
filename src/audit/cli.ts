import { readFile } from 'node:fs/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { ServiceContext } from '../serviceContext.js';
import { auditExport, formatProblem } from './auditor.js';
import { writeCheckpoint, type CheckpointDocument } from './checkpoint.js';
import { exportTo } from './export.js';
import { loadKeys } from './keySet.js';
import { CommandRefused, UsageError, type OperatorCommand } from '../commandLine.js';

/**
 * The auditor's commands. Each returns its exit code: 0 done, 1 failed (or the audit found
 * problems), 2 a usage error, printed with its usage.
 */

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

async function exportLog(args: string[], open: () => Promise<Pick<ServiceContext, 'store' | 'streamKeys'>>): Promise<number> {
  const parsed = parse<{ session?: string; decrypt?: boolean }>(args, { session: { type: 'string' }, decrypt: { type: 'boolean' } });
  if (!parsed.ok) return usage(parsed.problem);
  if (parsed.positionals.length > 0) return usage(`export takes no ${parsed.positionals[0]}`);
  await exportTo(await open(), { sessionId: parsed.values.session, decrypt: parsed.values.decrypt ?? false }, process.stdout);
  return 0;
}

/** Runs with no database and no service: everything it needs is in the files it is given. */
async function auditFile(args: string[]): Promise<number> {
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

async function checkpointNow(args: string[], open: () => Promise<Pick<ServiceContext, 'clock' | 'config' | 'receiptKeys' | 'store'>>): Promise<number> {
  if (args.length > 0) return usage(`checkpoint takes no ${args[0]}`);
  const jws = await writeCheckpoint(await open(), { notWithinMs: 0, wait: true });
  if (jws === undefined) throw new CommandRefused('another checkpointer wrote a checkpoint at the same moment; run it again');
  console.log(JSON.stringify({ checkpoint: jws }));
  return 0;
}

export const AUDIT_COMMANDS: readonly OperatorCommand[] = [
  {
    name: 'export',
    synopsis: '[--session ID] [--decrypt]',
    summary: "the log (or one Session's streams) as JSON Lines on stdout",
    details: () => '--decrypt opens sealed content with the data keys; without it the export holds ciphertext (docs/audit.md).',
    run: exportLog,
  },
  {
    name: 'audit',
    synopsis: 'FILE --keys JWKS [--checkpoint FILE] [--issuer ORIGIN]',
    summary: 'check an export offline, with no database: every chain, checkpoint and (opened) receipt',
    details: () => 'JWKS is a file or the served /.well-known/svc-receipt-keys.json URL; exit 1 when a problem is found.',
    run: (args) => auditFile(args),
  },
  {
    name: 'checkpoint',
    summary: 'sign a log checkpoint now and print it as {"checkpoint": "<JWS>"}',
    run: checkpointNow,
  },
];
