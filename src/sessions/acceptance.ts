import type { JsonObject, Step, UnitOfWork } from '../../eventstore/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { inSpan } from '../tracing/index.js';
import { decideAcceptance, type AnswerRefusal, type Submission } from './decide.js';
import type { DecisionResolved, ResponseAccepted, SessionEvent } from './events.js';
import * as sql from './sql.js';
import { acceptedResponseOf, type AcceptedResponse, type SessionFold, type SessionState } from './state.js';
import { appendToSession, loadSession } from './store.js';

/**
 * A person's answer accepted, as one command on the Session through the event store's pipeline:
 * load the Session the link opens (with what the reactions read beside it, one round trip),
 * decide (decide.ts), run the reactions other capabilities declare in their records (the receipt
 * signed, the delivery queued), append, and answer from the fold. Everything commits together or
 * nothing does.
 */

/** How an accepted answer goes back: none for a trial (its result is only read), by webhook, or by polling. */
export type ReturnChannel = 'webhook' | 'poll' | null;

/** An accepted answer about to be stored, as the reactions to it see it. */
export interface Acceptance {
  readonly uow: UnitOfWork;
  /** The Session decided on. */
  readonly session: SessionState;
  /** The event's id, chosen before it is stored: a receipt names it, a delivery sends it. */
  readonly eventId: string;
  /** The event to append; a reaction that signs it puts the signed event here. */
  event: ResponseAccepted;
  readonly now: Date;
  /** Settled before any reaction runs, from what each declared it sends back. */
  readonly returnChannel: ReturnChannel;
}

/**
 * A capability's part in accepting an answer (its record's `reactions.answerAccepted`), run in the
 * accepting unit of work before the answer is stored. Its capability owns what it reads.
 */
export interface AnswerReaction {
  /** What it reads beside the Session (sql.ts answerLoad): a SELECT of at most one row of the Session's workspace, $1, with no lock. */
  read?: string;
  /** Whether it sends the answer back, by what its read found: the channel a receipt then promises. */
  sends?(session: SessionState, row: JsonObject | null, now: Date): Exclude<ReturnChannel, 'poll' | null> | undefined;
  /** Its work, in the capability list's order, once the channel is settled; a refusal of its own accepts nothing. */
  react?(acceptance: Acceptance, row: JsonObject | null, ctx: ServiceContext): Promise<ReactionRefusal | void> | ReactionRefusal | void;
}

/**
 * The refusals reactions may answer with, each declared by its capability (receipts: no signing
 * key), so that the route that accepted answers them from that capability's table.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface ReactionRefusals {}
export type ReactionRefusal = ReactionRefusals[keyof ReactionRefusals];

/** A decision by several people resolved by the answer being accepted, as the reactions to it see it. */
export interface Resolution {
  readonly uow: UnitOfWork;
  /** The Session decided on. */
  readonly session: SessionState;
  readonly eventId: string;
  /** The event to append; a reaction that signs it puts the signed event here. */
  event: DecisionResolved;
  /** The deciding answers, in the order committed (the one being accepted last), each with its receipt. */
  readonly deciding: readonly AcceptedResponse[];
  readonly now: Date;
}

/** A capability's part in a decision's resolution (its record's `reactions.decisionResolved`), run after the answer's reactions. */
export interface ResolutionReaction {
  react(resolution: Resolution, ctx: ServiceContext): Promise<ReactionRefusal | void> | ReactionRefusal | void;
}

declare module '../serviceContext.js' {
  interface Reactions {
    answerAccepted: AnswerReaction;
    decisionResolved: ResolutionReaction;
  }
}

export type AcceptOutcome =
  /** Accepted now, or the same request again (the original result and receipt): the Session after it. */
  | { accepted: AcceptedResponse; session: SessionState }
  /** Refused; the Session as it stands, when the link opens one. */
  | { refusal: AnswerRefusal | ReactionRefusal; session: SessionState | undefined };

/** Statements by the reads they carry: made once per set of reactions. */
const loads = new WeakMap<readonly AnswerReaction[], ReturnType<typeof sql.answerLoad>>();

function loadOf(reactions: readonly AnswerReaction[]): ReturnType<typeof sql.answerLoad> {
  let load = loads.get(reactions);
  if (!load) loads.set(reactions, (load = sql.answerLoad(reactions.flatMap((r) => r.read ?? []))));
  return load;
}

/** What each reaction read: its own column, or null for a reaction that reads nothing. */
function rowsOf(reactions: readonly AnswerReaction[], row: Record<string, unknown>): Array<JsonObject | null> {
  let column = 0;
  return reactions.map((r) => (r.read ? ((row[`beside_${column++}`] as JsonObject | null) ?? null) : null));
}

/**
 * A person's answer on the link (human_url, or a responder's own) whose token hashes to `linkHash`. `submissionOf` types what the
 * person sent against the Session as it stands (the page's form knows how), with the time.
 */
export function acceptAnswer(ctx: ServiceContext, linkHash: string, submissionOf: (session: SessionState, now: Date) => Submission): Promise<AcceptOutcome> {
  const reactions = ctx.reactions.answerAccepted ?? [];
  return inSpan('answer accepted', async (span) => {
    const outcome = await accept(ctx, reactions, linkHash, submissionOf);
    if (outcome.session) span.setAttribute('svc.session.id', outcome.session.id);
    span.setAttribute('svc.answer.outcome', 'accepted' in outcome ? 'accepted' : outcome.refusal.refused);
    return outcome;
  });
}

function accept(ctx: ServiceContext, reactions: readonly AnswerReaction[], linkHash: string, submissionOf: (session: SessionState, now: Date) => Submission): Promise<AcceptOutcome> {
  return ctx.store.command(async (uow): Promise<AcceptOutcome> => {
    const [opened] = await uow.readStreamsWith<Record<string, unknown>>(loadOf(reactions), [linkHash]);
    // A purged Session's link, and one that opens nothing, look alike.
    const before = opened && (await loadSession(uow, ctx.streamKeys, opened.requested));
    if (!before) return { refusal: { refused: 'link_not_found' }, session: undefined };
    const now = ctx.clock.now();
    // An answer through a responder's own link is that responder's.
    const responderId = (opened.responder_id as string | null) ?? undefined;
    const decision = decideAcceptance(before, { ...submissionOf(before, now), ...(responderId ? { responderId } : {}) });
    if ('replay' in decision) return { accepted: decision.replay, session: before };
    const read = rowsOf(reactions, opened);
    const react: Step<SessionFold, SessionEvent, ReactionRefusal> = async (proposal) => {
      const [pending] = proposal.events;
      const sent = reactions.map((r, i) => r.sends?.(before, read[i]!, now)).find((channel) => channel !== undefined);
      const acceptance: Acceptance = {
        uow,
        session: before,
        eventId: pending!.eventId,
        event: pending!.event as ResponseAccepted,
        now,
        returnChannel: before.trial ? null : (sent ?? 'poll'),
      };
      for (const [i, reaction] of reactions.entries()) {
        const refusal = await reaction.react?.(acceptance, read[i]!, ctx);
        if (refusal) return refusal;
      }
      const [, resolved] = proposal.events;
      proposal.events = [{ ...pending!, event: acceptance.event }];
      if (!resolved) return;
      // The answer, signed now, is the last of those that decided.
      const answered = acceptedResponseOf(acceptance.event, { streamId: before.id, eventId: pending!.eventId, streamVersion: before.version + 1, metadata: {} });
      const event = resolved.event as DecisionResolved;
      const resolution: Resolution = {
        uow,
        session: before,
        eventId: resolved.eventId,
        event,
        deciding: event.responses.map((sequence) => [...before.responses, answered].find((r) => r.sequence === sequence)!),
        now,
      };
      for (const reaction of ctx.reactions.decisionResolved ?? []) {
        const refusal = await reaction.react(resolution, ctx);
        if (refusal) return refusal;
      }
      proposal.events.push({ ...resolved, event: resolution.event });
    };
    const outcome = await appendToSession(uow, ctx.streamKeys, before.id, before, decision, { steps: [react] });
    if ('refused' in outcome) return { refusal: outcome, session: before };
    return { accepted: outcome.state.responses.at(-1)!, session: outcome.state };
  });
}
