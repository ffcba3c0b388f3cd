import { describe, expect, it } from 'vitest';
import type { SessionStatus } from '../../src/sessions/index.js';
import { decideAdmission, decideStart, decideTrialSession, type AddTrialSession, type AdmitTrial, type TrialRefusal } from '../../src/trials/decide.js';
import type { TrialEvent, TrialSessionCreated } from '../../src/trials/events.js';
import { trialDecider, type Admission } from '../../src/trials/state.js';
import { deciderSpec } from '../support/decider.js';

/** The trial's deciders, pure: given past events (or admissions), when a command, then events or a refusal. */

const T0 = Date.parse('2026-07-01T10:00:00.000Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const at = (ms: number) => new Date(T0 + ms);
const iso = (ms: number) => at(ms).toISOString();

const started: TrialEvent = { type: 'trial.started', at: iso(0), workspace_id: 'wks_T', credential_hash: 'h', trial_expires_at: iso(DAY) };

/** A Session the trial created `ms` after its start. */
const created = (id: string, ms: number): TrialSessionCreated => ({
  type: 'trial.session_created',
  at: iso(ms),
  session_id: id,
  action_expires_at: iso(ms + HOUR),
  result_available_until: iso(ms + HOUR + DAY),
});

const spec = deciderSpec(trialDecider);

function given(...events: TrialEvent[]) {
  return {
    when(command: Partial<AddTrialSession> & { now: Date }) {
      const when = spec(...events).when((trial) => decideTrialSession(trial!, { sessionId: 'ses_NEW', statuses: new Map(), admissions: [], client: 'me', ...command }));
      return {
        then: (...expected: TrialEvent[]) => when.then(...expected),
        refuses: (refused: TrialRefusal['refused'], retryAfterSeconds: number) => when.refuses(refused, { retryAfterSeconds }),
      };
    },
  };
}

const active = (...ids: string[]): Map<string, SessionStatus> => new Map(ids.map((id) => [id, 'active']));

describe('decideTrialSession', () => {
  it('creates a Session with its one-hour action window and a day more to read its result', () => {
    given(started, created('s1', 0))
      .when({ statuses: active('s1'), now: at(5 * MINUTE) })
      .then(created('ses_NEW', 5 * MINUTE));
  });

  it('accepts a 3rd active Session, refuses a 4th until the earliest action window ends', () => {
    const history = [started, created('s1', 0), created('s2', MINUTE)] as const;
    given(...history).when({ statuses: active('s1', 's2'), now: at(2 * MINUTE) }).then(created('ses_NEW', 2 * MINUTE));
    given(...history, created('s3', 2 * MINUTE))
      .when({ statuses: active('s1', 's2', 's3'), now: at(3 * MINUTE) })
      .refuses('trial_sessions_active', 57 * 60);
  });

  it('counts neither an answered Session nor one whose action window ended as active', () => {
    const history = [started, created('s1', 0), created('s2', MINUTE), created('s3', 2 * MINUTE)] as const;
    given(...history)
      .when({ statuses: new Map([...active('s1', 's3'), ['s2', 'responded']]), now: at(3 * MINUTE) })
      .then(created('ses_NEW', 3 * MINUTE));
    given(...history).when({ statuses: active('s1', 's2', 's3'), now: at(HOUR) }).then(created('ses_NEW', HOUR));
    given(...history).when({ statuses: active('s1', 's2', 's3'), now: at(HOUR - 1) }).refuses('trial_sessions_active', 1);
  });

  it('when the trial closes before an active place frees, waits for a new trial instead', () => {
    const late = [started, created('s1', DAY - 30 * MINUTE), created('s2', DAY - 20 * MINUTE), created('s3', DAY - 10 * MINUTE)] as const;
    given(...late).when({ statuses: active('s1', 's2', 's3'), now: at(DAY - 5 * MINUTE) }).refuses('trial_sessions_active', 1);
    const admissions: Admission[] = [0, MINUTE, 2 * MINUTE].map((ms) => ({ client: 'me', admittedAt: at(ms) }));
    given(...late).when({ statuses: active('s1', 's2', 's3'), admissions, now: at(DAY - 5 * MINUTE) }).refuses('trial_sessions_active', 5 * 60);
  });

  it('accepts the 10th Session and refuses the 11th: the wait is for a new trial', () => {
    const nine = Array.from({ length: 9 }, (_, i) => created(`s${i}`, i * HOUR));
    given(started, ...nine).when({ now: at(10 * HOUR) }).then(created('ses_NEW', 10 * HOUR));
    const ten = [...nine, created('s9', 9 * HOUR)];
    given(started, ...ten).when({ now: at(10 * HOUR) }).refuses('trial_sessions_used', 1);
    const mine: Admission[] = [0, HOUR, 2 * HOUR].map((ms) => ({ client: 'me', admittedAt: at(ms) }));
    given(started, ...ten).when({ admissions: mine, now: at(10 * HOUR) }).refuses('trial_sessions_used', 14 * 3600);
  });

  it('creates until trial_expires_at, never at or after it', () => {
    given(started, created('s1', 0)).when({ now: at(DAY - 1) }).then(created('ses_NEW', DAY - 1));
    given(started, created('s1', 0)).when({ now: at(DAY) }).refuses('trial_closed', 1);
    const others: Admission[] = Array.from({ length: 200 }, (_, i) => ({ client: `c${i}`, admittedAt: at(DAY - HOUR + i) }));
    given(started, created('s1', 0)).when({ admissions: others, now: at(DAY) }).refuses('trial_closed', 23 * 3600);
  });
});

const admit = (now: number): AdmitTrial => ({ workspaceId: 'wks_N', client: 'me', now: at(now) });
const admitted = (client: string, ms: number): Admission => ({ client, admittedAt: at(ms) });
const start = deciderSpec(trialDecider);

describe('decideStart', () => {
  it("begins a new trial's stream: its start with a 24-hour creation window, and its first Session", () => {
    start()
      .when(() => decideStart({ workspaceId: 'wks_N', credentialHash: 'hash', sessionId: 'ses_FIRST', now: at(2 * MINUTE) }))
      .then(
        { type: 'trial.started', at: iso(2 * MINUTE), workspace_id: 'wks_N', credential_hash: 'hash', trial_expires_at: iso(DAY + 2 * MINUTE) },
        created('ses_FIRST', 2 * MINUTE),
      );
  });
});

describe('decideAdmission', () => {
  it('admits a trial to the ledger', () => {
    expect(decideAdmission([admitted('me', 0), admitted('me', MINUTE)], admit(2 * MINUTE))).toEqual({
      events: [{ type: 'trial.admitted', at: iso(2 * MINUTE), workspace_id: 'wks_N', client: 'me' }],
    });
  });

  it('refuses a client its 4th trial in the rolling window until its oldest leaves it; other clients do not count', () => {
    const three = [admitted('me', 0), admitted('me', MINUTE), admitted('me', 2 * MINUTE), admitted('you', 3 * MINUTE)];
    expect(decideAdmission(three, admit(3 * MINUTE))).toEqual({ refused: 'client_trials_used', retryAfterSeconds: 24 * 3600 - 3 * 60 });
    expect(decideAdmission(three, admit(DAY - 1))).toEqual({ refused: 'client_trials_used', retryAfterSeconds: 1 });
    expect(decideAdmission(three, admit(DAY))).toHaveProperty('events');
    expect(decideAdmission(three, { ...admit(3 * MINUTE), client: 'you' })).toHaveProperty('events');
  });

  it('refuses every client the 201st trial in the rolling window until the oldest leaves it', () => {
    const full = Array.from({ length: 200 }, (_, i) => admitted(`c${i}`, i * 1000));
    expect(decideAdmission(full.slice(1), admit(HOUR))).toHaveProperty('events');
    expect(decideAdmission(full, admit(HOUR))).toEqual({ refused: 'trials_used', retryAfterSeconds: 23 * 3600 });
    expect(decideAdmission(full, admit(DAY))).toHaveProperty('events');
    expect(decideAdmission(full, admit(DAY))).toMatchObject({ events: [{ at: iso(DAY) }] });
  });

  it('when both limits hold, waits for the later of the two', () => {
    const full = Array.from({ length: 197 }, (_, i) => admitted(`c${i}`, i * 1000));
    const mine = [admitted('me', HOUR), admitted('me', HOUR + 1000), admitted('me', HOUR + 2000)];
    expect(decideAdmission([...full, ...mine], admit(2 * HOUR))).toEqual({ refused: 'client_trials_used', retryAfterSeconds: 23 * 3600 });
    // Above the limit (as after a limit was lowered) more than the oldest must leave first.
    const early = [admitted('me', 0), admitted('me', 1000), admitted('me', 2000)];
    const later = Array.from({ length: 199 }, (_, i) => admitted(`c${i}`, HOUR + i * 1000));
    expect(decideAdmission([...early, ...later], admit(2 * HOUR))).toEqual({ refused: 'trials_used', retryAfterSeconds: 22 * 3600 + 2 });
  });
});
