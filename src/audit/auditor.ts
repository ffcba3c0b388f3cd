import { createReadStream } from 'node:fs';
import { ChainWalk } from '../../eventstore/index.js';
import { CHECKPOINTED, CHECKPOINT_STREAM, CHECKPOINT_TYP, type CheckpointPayload } from './checkpoint.js';
import { CheckpointCheck, type AuditProblem, type LoggedCheckpoint } from './checkpointCheck.js';
import { verifierOf, type TrustedKeys } from './keySet.js';
import { ReceiptCheck, type ExportedLine } from './receiptCheck.js';

/**
 * The offline audit of an export: no database, no service. The file is read twice, a line at a
 * time: first for the log checkpoints it holds (each covers a prefix of the log, which the second
 * read must know before it gets there), then to walk every chain, check every checkpoint and, in
 * an opened export, every receipt. Memory grows with the number of streams, never of events.
 */

export interface AuditInput {
  file: string;
  keys: TrustedKeys;
  /** A checkpoint the auditor kept (its compact JWS). */
  checkpoint?: string;
  /** The origin receipts must name as issuer; else the key set's URL, else the checkpoints'. */
  issuer?: string;
}

export interface AuditReport {
  problems: AuditProblem[];
  events: number;
  streams: number;
  receipts: { verified: number; unopened: number; absent: number };
  checkpoints: number;
  issuer: string | undefined;
}

export const formatProblem = (p: AuditProblem): string => `${p.streamId}${p.streamVersion === undefined ? '' : ` v${p.streamVersion}`}: ${p.problem}`;

/**
 * Hands each non-empty line of the file to `handle`, numbered from 1, waiting only when it
 * returns a promise: a line costs a split and a call, not a turn of the event loop. Lines are
 * found in the bytes (a newline byte is never part of a longer UTF-8 character) and each is
 * decoded on its own: a fresh short string parses more than twice as fast as a slice of a
 * decoded chunk.
 */
async function eachLine(file: string, handle: (number: number, line: string) => void | Promise<void>): Promise<void> {
  let number = 0;
  let rest: Buffer = Buffer.alloc(0);
  const lines = async (buffer: Buffer, last: boolean): Promise<number> => {
    let start = 0;
    for (let end = buffer.indexOf(10); end >= 0 || (last && start < buffer.length); end = buffer.indexOf(10, start)) {
      const stop = end < 0 ? buffer.length : end;
      const line = buffer.toString('utf8', start, buffer[stop - 1] === 13 ? stop - 1 : stop);
      start = stop + 1;
      number += 1;
      if (line.length === 0 || (line.charCodeAt(0) <= 32 && line.trim() === '')) continue;
      const pending = handle(number, line);
      if (pending) await pending;
    }
    return start;
  };
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const buffer = rest.length === 0 ? (chunk as Buffer) : Buffer.concat([rest, chunk as Buffer]);
    rest = buffer.subarray(await lines(buffer, false));
  }
  await lines(rest, true);
}

const FIELDS: Array<[keyof ExportedLine, string]> = [
  ['global_position', 'number'],
  ['transaction_id', 'number'],
  ['event_id', 'string'],
  ['stream_id', 'string'],
  ['stream_version', 'number'],
  ['type', 'string'],
  ['data', 'string'],
  ['metadata', 'string'],
  ['recorded_at', 'string'],
  ['hash', 'string'],
  ['link_format', 'number'],
];

/** The line as an exported event, or what is wrong with it. */
function parseLine(line: string): ExportedLine | string {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return 'not JSON';
  }
  if (typeof value !== 'object' || value === null) return 'not an exported event';
  for (const [name, type] of FIELDS) if (typeof value[name] !== type) return `not an exported event: ${name} is not a ${type}`;
  if (value.prev_hash !== null && typeof value.prev_hash !== 'string') return 'not an exported event: prev_hash is not a string or null';
  return value as unknown as ExportedLine;
}

/**
 * The lines of the file that contain `needle`, found in the raw bytes: only those lines are
 * decoded, so this read of the file costs little more than the reading.
 */
async function linesContaining(file: string, needle: string, handle: (line: string) => Promise<void>): Promise<void> {
  const bytes = Buffer.from(needle, 'utf8');
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const buffer = rest.length === 0 ? (chunk as Buffer) : Buffer.concat([rest, chunk as Buffer]);
    const complete = buffer.lastIndexOf(10) + 1;
    for (let at = buffer.indexOf(bytes); at >= 0 && at < complete; at = buffer.indexOf(bytes, at + 1)) {
      const start = buffer.lastIndexOf(10, at) + 1;
      const end = buffer.indexOf(10, at);
      await handle(buffer.toString('utf8', start, end));
      at = end;
    }
    rest = buffer.subarray(complete);
  }
  if (rest.includes(bytes)) await handle(rest.toString('utf8'));
}

/** The signed checkpoints the file holds, in the order it holds them. */
async function loggedCheckpoints(
  file: string,
  verify: ReturnType<typeof verifierOf>,
  problems: AuditProblem[],
): Promise<LoggedCheckpoint[]> {
  const logged: LoggedCheckpoint[] = [];
  await linesContaining(file, CHECKPOINTED, async (line) => {
    const event = parseLine(line);
    if (typeof event === 'string' || event.stream_id !== CHECKPOINT_STREAM || event.type !== CHECKPOINTED) return;
    const jws = (JSON.parse(event.data) as { checkpoint?: unknown }).checkpoint;
    const verified = typeof jws === 'string' ? await verify(jws, CHECKPOINT_TYP) : { ok: false as const, problem: 'is missing' };
    if (verified.ok) logged.push({ version: event.stream_version, jws: jws as string, payload: verified.payload as CheckpointPayload });
    else problems.push({ streamId: CHECKPOINT_STREAM, streamVersion: event.stream_version, problem: `checkpoint ${verified.problem}` });
  });
  return logged;
}

export async function auditExport(input: AuditInput): Promise<AuditReport> {
  const verify = verifierOf(input.keys);
  const problems: AuditProblem[] = [];
  const logged = await loggedCheckpoints(input.file, verify, problems);

  let kept: CheckpointPayload | undefined;
  if (input.checkpoint !== undefined) {
    const verified = await verify(input.checkpoint, CHECKPOINT_TYP);
    if (verified.ok) kept = verified.payload as CheckpointPayload;
    else problems.push({ streamId: 'kept checkpoint', problem: verified.problem });
  }
  const issuer = input.issuer ?? input.keys.origin ?? logged.at(-1)?.payload.iss ?? kept?.iss;

  const walk = new ChainWalk();
  const checkpoints = new CheckpointCheck(logged, kept, kept && input.checkpoint);
  const receipts = new ReceiptCheck(verify, issuer);
  let events = 0;
  const note = (found: readonly AuditProblem[]) => {
    for (const problem of found) problems.push(problem);
  };
  await eachLine(input.file, (number, line) => {
    const event = parseLine(line);
    if (typeof event === 'string') {
      problems.push({ streamId: `line ${number}`, problem: event });
      return;
    }
    checkpoints.before(event, walk, events);
    note(walk.check(event));
    events += 1;
    note(checkpoints.walked(event));
    // Only a Session's events can hold a receipt, or what one is checked against.
    if (receipts.concerns(event)) return receipts.observe(event).then(note);
  });
  problems.push(...checkpoints.finish(walk, events));
  if (receipts.issuerUnchecked > 0) {
    problems.push({ streamId: 'receipts', problem: `${receipts.issuerUnchecked} receipts verified with no issuer to compare: pass --issuer, or the key set's URL` });
  }
  return {
    problems,
    events,
    streams: walk.heads.size,
    receipts: { verified: receipts.verified, unopened: receipts.unopened, absent: receipts.absent },
    checkpoints: checkpoints.verified,
    issuer,
  };
}
