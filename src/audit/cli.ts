import { readFile } from 'node:fs/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { ServiceContext } from '../serviceContext.js';
import { auditExport, formatProblem } from './auditor.js';
import { writeCheckpoint, type CheckpointDocument } from './checkpoint.js';
import { exportTo } from './export.js';
import { loadKeys } from './keySet.js';
import { checkConsistency, checkInclusion, exportedEvent, type ConsistencyDocument } from './proofCheck.js';
import { ProofError } from '../client/merkle.js';
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
  if (args[0] === 'verify-proof') return verifyProofCommand(args.slice(1));
  if (args[0] === 'verify-consistency') return verifyConsistencyCommand(args.slice(1));
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

/** A verifier key given as itself or as a file holding it (the served list: its first line). */
async function verifierKeyOf(value: string): Promise<string> {
  if (value.includes('+')) return value;
  return (await readFile(value, 'utf8')).split('\n')[0]!.trim();
}

/** Prints the check's outcome: 0 when it held, 1 with the reason when it did not. */
async function outcome(check: () => Promise<string>): Promise<number> {
  try {
    console.log(await check());
    return 0;
  } catch (error) {
    if (!(error instanceof ProofError)) throw error;
    console.log(`not verified (${error.reason}): ${error.message}`);
    return 1;
  }
}

async function verifyProofCommand(args: string[]): Promise<number> {
  const parsed = parse<{ export?: string; event?: string; key?: string; origin?: string }>(args, {
    export: { type: 'string' },
    event: { type: 'string' },
    key: { type: 'string' },
    origin: { type: 'string' },
  });
  if (!parsed.ok) return usage(parsed.problem);
  const [proofFile, ...extra] = parsed.positionals;
  if (proofFile === undefined || extra.length > 0) return usage('audit verify-proof takes one PROOF file');
  const { export: exportFile, event: eventId, key, origin } = parsed.values;
  if (exportFile === undefined || eventId === undefined || key === undefined) return usage('audit verify-proof needs --export FILE, --event ID and --key VKEY');
  const event = await exportedEvent(exportFile, eventId);
  if (!event) throw new CommandRefused(`${exportFile} holds no event ${eventId}`);
  const proof = await readFile(proofFile, 'utf8');
  const verifierKey = await verifierKeyOf(key);
  return outcome(async () => {
    const { head, index } = await checkInclusion({ proof, event, verifierKey, origin });
    return `verified: ${eventId} is leaf ${index} of the tree of ${head.size} leaves that ${head.origin} signed`;
  });
}

async function verifyConsistencyCommand(args: string[]): Promise<number> {
  const parsed = parse<{ proof?: string; key?: string; origin?: string }>(args, { proof: { type: 'string' }, key: { type: 'string' }, origin: { type: 'string' } });
  if (!parsed.ok) return usage(parsed.problem);
  const [olderFile, newerFile, ...extra] = parsed.positionals;
  if (olderFile === undefined || newerFile === undefined || extra.length > 0) return usage('audit verify-consistency takes the OLD and the NEW checkpoint files');
  if (parsed.values.proof === undefined || parsed.values.key === undefined) return usage('audit verify-consistency needs --proof FILE and --key VKEY');
  const [older, newer, proofText] = await Promise.all([readFile(olderFile, 'utf8'), readFile(newerFile, 'utf8'), readFile(parsed.values.proof, 'utf8')]);
  const verifierKey = await verifierKeyOf(parsed.values.key);
  return outcome(async () => {
    const heads = await checkConsistency({ older, newer, proof: JSON.parse(proofText) as ConsistencyDocument, verifierKey, origin: parsed.values.origin });
    return `verified: the tree of ${heads.newer.size} leaves extends the tree of ${heads.older.size} (${heads.newer.origin})`;
  });
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
    synopsis: 'FILE --keys JWKS [--checkpoint FILE] [--issuer ORIGIN] | verify-proof PROOF --export FILE --event ID --key VKEY [--origin ORIGIN] | verify-consistency OLD NEW --proof FILE --key VKEY [--origin ORIGIN]',
    summary: 'check an export offline, with no database: every chain, checkpoint and (opened) receipt; or one proof',
    details: () =>
      [
        'JWKS is a file or the served /.well-known/svc-receipt-keys.json URL; exit 1 when a problem is found.',
        'verify-proof checks a tlog-proof bundle (GET /v1/sessions/{id}/responses/{event_id}/proof) for the event',
        "as the export holds it, against the log's verifier key (GET /.well-known/svc-log-verifier-keys.txt).",
        'verify-consistency checks that the checkpoint note NEW extends OLD, with the proof GET /v1/log/consistency answered.',
      ].join('\n'),
    run: (args) => auditFile(args),
  },
  {
    name: 'checkpoint',
    summary: 'sign a log checkpoint now and print it as {"checkpoint": "<JWS>"}',
    run: checkpointNow,
  },
];
