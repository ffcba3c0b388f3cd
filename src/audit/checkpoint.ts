import { CompactSign } from 'jose';
import {
  START,
  canonicalJson,
  handleCommand,
  ledger,
  StreamVersionConflict,
  headsSince,
  headsUpToHorizon,
  horizonEnd,
  type Checkpoint,
  type Reader,
  type UnitOfWork,
} from '../../eventstore/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { logOrigin, signCheckpoint } from './logNote.js';
import * as sql from './sql.js';
import { growTree, treeHead } from './tree.js';

/**
 * Signed log checkpoints. A hash chain shows a changed or missing event inside a stream, but not
 * a stream that lost its newest events: a checkpoint does. Each one records where the
 * commit-safe log ended, how many streams and events it held, and one hash over every stream's
 * head, signed with the active receipt key; it is appended to the log itself, in a stream of its
 * own, after the heads of the streams that changed since the one before, so that an auditor who
 * kept any checkpoint can name each stream that was truncated, rewritten or dropped since
 * (docs/audit.md).
 */

export const CHECKPOINT_STREAM = 'log-checkpoints';
/** A slice of the heads that changed since the previous checkpoint: `{heads: [[stream_id, version, hash]]}`. */
export const HEADS_RECORDED = 'log.heads_recorded';
/** `{checkpoint: <compact JWS>, note: <the tree head as a signed note>}`; always the last event of a checkpoint. */
export const CHECKPOINTED = 'log.checkpointed';
export const CHECKPOINT_TYP = 'svc-log-checkpoint+jwt';

type CheckpointEvent = { type: typeof HEADS_RECORDED; heads: Array<[string, number, string]> } | { type: typeof CHECKPOINTED; checkpoint: string; note: string };

/** The checkpoint stream: a ledger an auditor reads whole, appended to at its head. */
const checkpoints = ledger<undefined, CheckpointEvent>();

/** Heads per log.heads_recorded event: the first checkpoint of a large log records every stream. */
const HEADS_PER_EVENT = 1_000;

/** The signed claims. The log up to (transaction_id, position), in log order, is what it covers. */
export interface CheckpointPayload {
  iss: string;
  iat: number;
  /** The global position of the newest event covered; 0 for an empty log. */
  position: number;
  transaction_id: number;
  streams: number;
  events: number;
  heads_hash: string;
}

/** What `GET /.well-known/svc-log-checkpoint.json` serves and `checkpoint` prints. */
export interface CheckpointDocument {
  checkpoint: string;
}

/** The claims of a checkpoint this service signed (read back from its own log; not verified here). */
export function payloadOf(jws: string): CheckpointPayload {
  return JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8')) as CheckpointPayload;
}

const coverageOf = (payload: CheckpointPayload): Checkpoint => ({
  transactionId: String(payload.transaction_id),
  globalPosition: String(payload.position),
});

/** What a log.checkpointed event holds; checkpoints signed before the Merkle tree have no note. */
interface Checkpointed extends CheckpointDocument {
  note?: string;
}

interface NewestCheckpoint {
  jws: string;
  note?: string;
}

export async function newestCheckpoint(db: Reader): Promise<NewestCheckpoint | undefined> {
  const { rows } = await db.query<{ data: string }>(sql.NEWEST_CHECKPOINT, [CHECKPOINT_STREAM]);
  const row = rows[0];
  if (!row) return undefined;
  const { checkpoint, note } = JSON.parse(row.data) as Checkpointed;
  return { jws: checkpoint, ...(note === undefined ? {} : { note }) };
}

class ReceiptKeysMissing extends Error {
  constructor() {
    super('receipt keys are not configured (SVC_RECEIPT_KEYS): a checkpoint is signed with the active one');
    this.name = 'ReceiptKeysMissing';
  }
}

export interface CheckpointTurn {
  /** Another checkpoint newer than this is enough: none is written. 0 writes one whatever. */
  notWithinMs: number;
  /** Wait for a checkpointer that holds the turn (the command line) rather than leave it the turn. */
  wait: boolean;
}

/**
 * Grows the Merkle tree to the horizon, then writes a checkpoint unless one was written within
 * `notWithinMs`, or another checkpointer holds the turn; returns its JWS, or undefined when none
 * was written. The tree grows on every call, so it keeps up between checkpoints. The checkpoint is one
 * repeatable-read transaction: the horizon, the heads and the counts are those of one snapshot,
 * and a checkpoint committed after that snapshot makes this append conflict, so copies running
 * side by side never write two within the interval.
 */
export async function writeCheckpoint(ctx: Pick<ServiceContext, 'clock' | 'config' | 'receiptKeys' | 'store'>, turn: CheckpointTurn): Promise<string | undefined> {
  const keys = ctx.receiptKeys;
  if (!keys) throw new ReceiptKeysMissing();
  await growTree(ctx.store);
  const work = async (uow: UnitOfWork): Promise<string | undefined> => {
    await uow.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const { rows } = await uow.query<{ locked: boolean }>(turn.wait ? sql.LOCK_CHECKPOINTS : sql.TRY_LOCK_CHECKPOINTS);
    if (!rows[0]?.locked) return undefined;
    const now = ctx.clock.now();
    const newest = await newestCheckpoint(uow);
    const previous = newest && payloadOf(newest.jws);
    if (previous && now.getTime() - previous.iat * 1000 < turn.notWithinMs) return undefined;

    // Appended at the stream's head as this snapshot has it: a checkpoint committed since conflicts.
    const append = (event: CheckpointEvent) => handleCommand(uow, checkpoints, CHECKPOINT_STREAM, () => ({ events: [event] }));
    const record = (heads: Array<[string, number, string]>) => append({ type: HEADS_RECORDED, heads });
    let pending: Array<[string, number, string]> = [];
    for await (const heads of headsSince(uow, previous ? coverageOf(previous) : START)) {
      for (const [streamId, head] of heads) {
        pending.push([streamId, head.version, head.hash]);
        if (pending.length === HEADS_PER_EVENT) {
          await record(pending);
          pending = [];
        }
      }
    }
    if (pending.length > 0) await record(pending);

    const end = (await horizonEnd(uow)) ?? START;
    const payload: CheckpointPayload = {
      iss: ctx.config.publicOrigin,
      iat: Math.floor(now.getTime() / 1000),
      position: Number(end.globalPosition),
      transaction_id: Number(end.transactionId),
      ...(await headsUpToHorizon(uow)),
    };
    const jws = await new CompactSign(Buffer.from(canonicalJson(payload), 'utf8'))
      .setProtectedHeader({ alg: 'EdDSA', typ: CHECKPOINT_TYP, kid: keys.active.kid })
      .sign(keys.active.privateKey);
    // The tree as this snapshot holds it: its passes commit whole, so it is a prefix of the log.
    const note = signCheckpoint(logOrigin(ctx.config.publicOrigin), await treeHead(uow), keys.active);
    await append({ type: CHECKPOINTED, checkpoint: jws, note });
    return jws;
  };
  try {
    // A waiting writer's snapshot predates the turn it waited for: the conflict that follows runs it again.
    return await (turn.wait ? ctx.store.command(work) : ctx.store.withUnitOfWork(work));
  } catch (error) {
    if (error instanceof StreamVersionConflict) return undefined;
    throw error;
  }
}
