import type { NoticeKind, NotifyPlan, ResponderRecord } from './events.js';
import { currentRevision, revisionAnswered, type SessionState } from './state.js';

/**
 * What a Session's notification plan asks for, decided from the Session alone: which messages are
 * still owed (each a durable timer: its due time is fixed by the plan and the revision's time), and
 * whether one claimed by a worker is still to be sent. Pure: the time comes in as `now`.
 */

/** One address (or the workspace's Slack channel) a plan names, with the step that names it first. */
export interface PlanEntry {
  channel: 'email' | 'slack';
  address: string | null;
  step: number;
}

/** A message owed to a responder: what the worker's job row says, and when it falls due. */
export interface NoticeJob {
  responderId: string;
  kind: NoticeKind;
  revision: number;
  dueAt: Date;
}

const SECOND_MS = 1_000;

/** The plan's addresses, each once, at the earliest step naming it; Slack (if asked) at step 0. */
export function planEntries(plan: NotifyPlan): PlanEntry[] {
  const entries: PlanEntry[] = [];
  const seen = new Set<string>();
  const add = (address: string, step: number) => {
    if (seen.has(address)) return;
    seen.add(address);
    entries.push({ channel: 'email', address, step });
  };
  for (const address of plan.email ?? []) add(address, 0);
  for (const [i, escalation] of (plan.escalate ?? []).entries()) for (const address of escalation.email) add(address, i + 1);
  if (plan.slack) entries.push({ channel: 'slack', address: null, step: 0 });
  return entries;
}

const sameTarget = (responder: ResponderRecord, entry: PlanEntry): boolean => responder.channel === entry.channel && responder.address === entry.address;

const recorded = (state: SessionState, responderId: string, kind: NoticeKind, revision: number): boolean =>
  state.notices.some((n) => n.responderId === responderId && n.kind === kind && n.revision === revision);

/** Whether the responder's first message of the revision was recorded sent: only then is a reminder owed. */
const firstSent = (state: SessionState, responderId: string, revision: number): boolean =>
  state.notices.some((n) => n.responderId === responderId && n.kind !== 'reminder' && n.revision === revision && n.failure === undefined);

/**
 * The messages the Session still owes: none once its plan's revision is answered or superseded, or
 * the Session completed; none falling due after its link expires; each (responder, kind, revision)
 * once, so a message recorded sent or failed is never owed again; a reminder only once its
 * responder's first message was sent (its time still counted from the plan's start), so a create
 * writes one job per responder, and a first message given up owes no reminder.
 */
export function owedNotices(state: SessionState): NoticeJob[] {
  const inForce = state.notify;
  if (!inForce || state.status === 'completed' || inForce.revision !== currentRevision(state) || revisionAnswered(state, inForce.revision)) return [];
  const { plan, revision } = inForce;
  const from = Date.parse(inForce.from);
  const delays = [0, ...(plan.escalate ?? []).map((e) => e.after_seconds)];
  const expiry = Date.parse(state.linkExpiresAt);
  const owed: NoticeJob[] = [];
  for (const entry of planEntries(plan)) {
    const responder = state.responders.find((r) => sameTarget(r, entry));
    // Someone who answered (a revision several people decide stays open) is owed nothing more.
    if (!responder || state.responses.some((r) => r.revision === revision && r.responderId === responder.id)) continue;
    const start = from + delays[entry.step]! * SECOND_MS;
    const first: NoticeKind = entry.step === 0 ? 'notify' : 'escalation';
    if (!recorded(state, responder.id, first, revision)) owed.push({ responderId: responder.id, kind: first, revision, dueAt: new Date(start) });
    const remind = plan.remind_after_seconds !== undefined && entry.channel === 'email';
    if (remind && !recorded(state, responder.id, 'reminder', revision) && firstSent(state, responder.id, revision)) {
      owed.push({ responderId: responder.id, kind: 'reminder', revision, dueAt: new Date(start + plan.remind_after_seconds! * SECOND_MS) });
    }
  }
  return owed.filter((job) => job.dueAt.getTime() < expiry);
}

/** What a worker does with a claimed job: send it, or drop it (no longer owed). */
export type NoticeDecision = { send: ResponderRecord } | { drop: true };

/**
 * A claimed job judged against the Session as it stands: dropped once it is no longer owed (an
 * answer, a completion, a new revision, the link's expiry, or recorded already).
 */
export function decideNotice(state: SessionState | undefined, job: Omit<NoticeJob, 'dueAt'>, now: Date): NoticeDecision {
  if (!state || now.getTime() >= Date.parse(state.linkExpiresAt)) return { drop: true };
  const owed = owedNotices(state).some((o) => o.responderId === job.responderId && o.kind === job.kind && o.revision === job.revision);
  const responder = state.responders.find((r) => r.id === job.responderId);
  if (!owed || !responder) return { drop: true };
  return { send: responder };
}

/** A responder as Session responses show it. */
export interface ResponderView {
  id: string;
  channel: 'email' | 'slack';
  address: string | null;
  state: 'pending' | 'notified' | 'failed' | 'answered';
  notified_at: string | null;
  reminded_at: string | null;
}

export function responderViews(state: SessionState): ResponderView[] {
  return state.responders.map((responder) => {
    const own = state.notices.filter((n) => n.responderId === responder.id);
    const sent = own.filter((n) => !n.failure);
    const last = (kinds: readonly NoticeKind[]) => sent.filter((n) => kinds.includes(n.kind)).at(-1)?.at ?? null;
    const answered = state.responses.some((r) => r.responderId === responder.id);
    const failed = own.at(-1)?.failure !== undefined;
    return {
      id: responder.id,
      channel: responder.channel,
      address: responder.address,
      state: answered ? 'answered' : failed ? 'failed' : sent.length > 0 ? 'notified' : 'pending',
      notified_at: last(['notify', 'escalation']),
      reminded_at: last(['reminder']),
    };
  });
}
