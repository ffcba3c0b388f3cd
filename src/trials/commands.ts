import { aggregateStream, appendDecision, handleCommand, ledger, type Reader, type StreamKeys, type UnitOfWork } from '../../eventstore/index.js';
import { HOUR } from '../clock.js';
import type { ServiceContext } from '../serviceContext.js';
import { newSessionId, openSession, openView, withLastMember, type CreatedSession, type SessionStatus, type StoredViewRow } from '../sessions/index.js';
import type { InteractiveInteraction } from '../sessions/index.js';
import { credentialHash, isManagementCredential, newManagementCredential, newTrialWorkspaceId } from './credential.js';
import { decideAdmission, decideStart, decideTrialSession, type TrialRefusal } from './decide.js';
import { ADMISSIONS_STREAM, trialStreamId, type TrialAdmitted } from './events.js';
import { TRIAL_LIMITS } from './limits.js';
import * as sql from './sql.js';
import { trialDecider, type Admission, type TrialState } from './state.js';

/**
 * The trial's commands. Each is one unit of work that appends to a stream every competing create
 * also appends to, at the version its limits were checked against: the trial's own stream for
 * its Sessions, the admissions ledger for new trials. A create that lost the race conflicts and
 * runs again (EventStore.command), so two concurrent creates never both slip past a limit. Each
 * takes its stream's turn before reading it, so that a burst of creates queue rather than keep
 * losing the race until their retries run out.
 */

export interface TrialCreated {
  session: CreatedSession;
  trial: TrialState;
  /** Only when this request started the trial: shown once, never stored. */
  managementCredential?: string;
}

export type TrialOutcome = TrialCreated | TrialRefusal;

/** What the caller asks for, and which client asks (clientDigest). */
export interface TrialRequest {
  interaction: InteractiveInteraction;
  client: string;
}

async function admissionsAt(db: Reader, now: Date): Promise<Admission[]> {
  const since = new Date(now.getTime() - TRIAL_LIMITS.admissionWindowMs);
  const { rows } = await db.query<{ client: string; admitted_at: Date }>(sql.ADMISSIONS_SINCE, [since]);
  return rows.map((row) => ({ client: row.client, admittedAt: row.admitted_at }));
}

async function sessionStatuses(db: Reader, trial: TrialState): Promise<Map<string, SessionStatus>> {
  const { rows } = await db.query<{ session_id: string; status: SessionStatus }>(sql.SESSION_STATUSES, [trial.sessions.map((s) => s.sessionId)]);
  return new Map(rows.map((row) => [row.session_id, row.status]));
}

/**
 * Opens the Session the trial's appended events name: interactive, in the trial's workspace, its
 * link and action window ending together, kept until its result stops being readable. The trial's
 * events go first, so their conflict comes before any other write.
 */
async function openTrialSession(
  uow: UnitOfWork,
  ctx: Pick<ServiceContext, 'config' | 'streamKeys'>,
  trial: TrialState,
  request: TrialRequest & { sessionId: string; now: Date },
): Promise<TrialCreated> {
  const session = await openSession(uow, ctx, request.sessionId, {
    workspaceId: trial.workspaceId,
    interaction: request.interaction,
    linkLifetimeHours: TRIAL_LIMITS.actionWindowMs / HOUR,
    retentionHours: TRIAL_LIMITS.resultReadableMs / HOUR,
    trial: true,
    now: request.now,
  });
  return { session, trial };
}

/** Every new trial's entry: a ledger the trials projection counts, its window read from there. */
const admissionsLedger = ledger<Admission[], TrialAdmitted>();

/** A new trial and its first Session; the management credential is returned once. */
export function startTrial(ctx: Pick<ServiceContext, 'clock' | 'config' | 'store' | 'streamKeys'>, request: TrialRequest): Promise<TrialOutcome> {
  return ctx.store.command(async (uow): Promise<TrialOutcome> => {
    const now = ctx.clock.now();
    const workspaceId = newTrialWorkspaceId();
    const admitted = await handleCommand(uow, admissionsLedger, ADMISSIONS_STREAM, (admissions) => decideAdmission(admissions, { workspaceId, client: request.client, now }), {
      turn: true,
      project: (reader) => admissionsAt(reader, now),
    });
    if ('refused' in admitted) return admitted;
    const credential = newManagementCredential();
    const sessionId = newSessionId();
    const started = await handleCommand(uow, trialDecider, trialStreamId(workspaceId), () => decideStart({ workspaceId, credentialHash: credentialHash(credential), sessionId, now }), {
      starts: true,
    });
    return { ...(await openTrialSession(uow, ctx, started.state!, { ...request, sessionId, now })), managementCredential: credential };
  });
}

/** One more Session in the caller's trial, within its limits. */
export function addTrialSession(ctx: Pick<ServiceContext, 'clock' | 'config' | 'store' | 'streamKeys'>, workspaceId: string, request: TrialRequest): Promise<TrialOutcome> {
  return ctx.store.command(async (uow): Promise<TrialOutcome> => {
    const now = ctx.clock.now();
    const stream = trialStreamId(workspaceId);
    await uow.lockStream(stream);
    // The stream first: the statuses read after it cover every Session it holds.
    const before = await aggregateStream(uow, trialDecider, stream);
    if (!before.state) return { refused: 'trial_not_found' };
    const statuses = await sessionStatuses(uow, before.state);
    const admissions = await admissionsAt(uow, now);
    const sessionId = newSessionId();
    const handled = await appendDecision(uow, trialDecider, stream, before, decideTrialSession(before.state, { sessionId, statuses, admissions, client: request.client, now }));
    if ('refused' in handled) return handled;
    return openTrialSession(uow, ctx, handled.state!, { ...request, sessionId, now });
  });
}

/** The trial a management credential opens; undefined for anything else, whatever it is. */
export async function trialOfCredential(db: Reader, credential: string): Promise<string | undefined> {
  if (!isManagementCredential(credential)) return undefined;
  const { rows } = await db.query<{ workspace_id: string }>(sql.TRIAL_BY_CREDENTIAL, [credentialHash(credential)]);
  return rows[0]?.workspace_id;
}

/**
 * The trial a management credential opens, with the time after which nothing of it remains (its
 * creation window and every Session's result ended); undefined for anything else.
 */
export async function trialForClaim(db: Reader, credential: string): Promise<{ workspaceId: string; deletesAt: Date } | undefined> {
  if (!isManagementCredential(credential)) return undefined;
  const { rows } = await db.query<{ workspace_id: string; deletes_at: Date }>(sql.TRIAL_FOR_CLAIM, [credentialHash(credential)]);
  return rows[0] && { workspaceId: rows[0].workspace_id, deletesAt: rows[0].deletes_at };
}

export interface TrialSessionView {
  etag: string;
  /** TrialSessionResponse: the Session's view with the trial's deadlines. */
  body: string;
  /** Until when it is readable: a held read ends then. */
  resultAvailableUntil: Date;
}

/** A trial's Session as the trial reads it, while its result is readable; reading changes nothing. */
export async function readTrialSession(
  db: Reader,
  keys: StreamKeys,
  workspaceId: string,
  sessionId: string,
  now: Date,
): Promise<TrialSessionView | undefined> {
  const { rows } = await db.query<StoredViewRow & { action_expires_at: Date; result_available_until: Date }>(sql.READABLE_SESSION, [sessionId, workspaceId, now]);
  const row = rows[0];
  const view = row && openView(keys, sessionId, row);
  if (!view) return undefined;
  const trial = {
    workspace_id: workspaceId,
    action_expires_at: row.action_expires_at.toISOString(),
    result_available_until: row.result_available_until.toISOString(),
  };
  // The Session's body as owners receive it, with `trial` added as its last member.
  return { etag: view.etag, body: withLastMember(view.body, 'trial', trial), resultAvailableUntil: row.result_available_until };
}
