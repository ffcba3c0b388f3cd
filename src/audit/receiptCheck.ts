import { canonicalJson, sha256Hex, type ExportedEvent, type JsonObject, type LinkProblem } from '../../eventstore/index.js';
import type { ResolutionClaims } from '../client/types.js';
import { receiptSha256, RESOLUTION_TYP, type ReceiptClaims } from '../receipts/index.js';
import { DECISION_RESOLVED, RESPONSE_ACCEPTED, REVISION_PUBLISHED, SESSION_CREATED } from '../sessions/index.js';
import type { Verified } from './keySet.js';

/** An exported line; `opened` only in an export made with --decrypt. */
export interface ExportedLine extends ExportedEvent {
  opened?: Record<string, unknown>;
}

const RECEIPT_TYP = 'svc-receipt+jwt';

/**
 * What a receipt must agree with: the Session's workspace and the hash of each revision it holds;
 * and what a resolution receipt binds: each answer's Event id and its receipt's hash, by sequence.
 */
interface SessionFacts {
  workspace: unknown;
  revisions: Map<number, string>;
  answers: Map<number, { eventId: string; receiptSha256: string }>;
}

const isErased = (value: unknown): boolean => typeof value === 'object' && value !== null && (value as { erased?: unknown }).erased === true;

/**
 * Checks every receipt of an opened export against the key set and against the event it is
 * stored with: the issuer, the Session's workspace as audience, the Session, the event, the
 * revision (and its content's hash), the action and the hash of the input. Keeps a little per
 * Session, nothing per event.
 */
export class ReceiptCheck {
  private readonly sessions = new Map<string, SessionFacts>();
  verified = 0;
  /** Sealed and not opened: an encrypted export, or a purged Session whose key was destroyed. */
  unopened = 0;
  /** Accepted before receipts existed: null. */
  absent = 0;
  /** Verified while no issuer was known to compare with. */
  issuerUnchecked = 0;

  constructor(
    private readonly verify: (jws: string, typ: string) => Promise<Verified>,
    private readonly issuer: string | undefined,
  ) {}

  concerns(line: ExportedLine): boolean {
    return line.type === SESSION_CREATED || line.type === REVISION_PUBLISHED || line.type === RESPONSE_ACCEPTED || line.type === DECISION_RESOLVED;
  }

  /** A Session event: the facts a later receipt is checked against, or a receipt checked. */
  async observe(line: ExportedLine): Promise<LinkProblem[]> {
    const data = JSON.parse(line.data) as JsonObject;
    const opened = line.opened?.sealed as JsonObject | undefined;
    const readable = opened !== undefined && !isErased(opened);
    if (line.type === SESSION_CREATED) {
      const facts: SessionFacts = { workspace: data.workspace_id, revisions: new Map(), answers: new Map() };
      if (readable) facts.revisions.set(1, sha256Hex(canonicalJson(opened.interaction)));
      this.sessions.set(line.stream_id, facts);
      return [];
    }
    if (line.type === REVISION_PUBLISHED) {
      if (readable) this.sessions.get(line.stream_id)?.revisions.set(data.revision as number, sha256Hex(canonicalJson(opened.interaction)));
      return [];
    }
    if (!readable) {
      this.unopened += 1;
      return [];
    }
    const receipt = opened.receipt;
    if (receipt === null) {
      this.absent += 1;
      return [];
    }
    const problem = (text: string): LinkProblem[] => [{ streamId: line.stream_id, streamVersion: line.stream_version, problem: text }];
    if (typeof receipt !== 'string') return problem('receipt is not a compact JWS');
    const facts = this.sessions.get(line.stream_id);
    const revision = data.revision as number;
    if (line.type === DECISION_RESOLVED) return this.resolution(line, receipt, opened, data, facts, problem);
    // What a resolution of this revision binds: the answer's receipt, by its hash.
    facts?.answers.set(line.stream_version - 1, { eventId: line.event_id, receiptSha256: receiptSha256(receipt) });
    const verified = await this.verify(receipt, RECEIPT_TYP);
    if (!verified.ok) return problem(`receipt ${verified.problem}`);
    const claims = verified.payload as Partial<ReceiptClaims>;
    const wrong = this.mismatches(claims, line, facts, revision, [
      ['action_id', opened.action_id],
      ['input_sha256', sha256Hex(canonicalJson(opened.data))],
      ['accepted_at', data.at],
    ]);
    if (wrong.length > 0) return problem(`receipt does not match its event: ${wrong.join('; ')}`);
    this.verified += 1;
    return [];
  }

  /** The claims every receipt of the event shares with it (issuer, audience, Session, Event, revision), and `more`, each that differs. */
  private mismatches(claims: Record<string, unknown>, line: ExportedLine, facts: SessionFacts | undefined, revision: number, more: Array<[string, unknown]>): string[] {
    const expected: Array<[string, unknown]> = [
      ['aud', facts?.workspace],
      ['workspace_id', facts?.workspace],
      ['session_id', line.stream_id],
      ['event_id', line.event_id],
      ['jti', line.event_id],
      ['revision', revision],
      ['step_id', `${line.stream_id}/r${revision}`],
      ...more,
    ];
    const revisionHash = facts?.revisions.get(revision);
    if (revisionHash !== undefined) expected.push(['revision_sha256', revisionHash]);
    if (this.issuer === undefined) this.issuerUnchecked += 1;
    else expected.push(['iss', this.issuer]);
    return expected.filter(([name, value]) => claims[name] !== value).map(([name, value]) => `${name} ${JSON.stringify(claims[name])} (the event's: ${JSON.stringify(value)})`);
  }

  /**
   * A resolution receipt (decision.resolved): verified as a receipt of its own type, matched with
   * its event, and each answer it binds found among the Session's answers with that receipt's hash.
   */
  private async resolution(
    line: ExportedLine,
    receipt: string,
    opened: JsonObject,
    data: JsonObject,
    facts: SessionFacts | undefined,
    problem: (text: string) => LinkProblem[],
  ): Promise<LinkProblem[]> {
    const verified = await this.verify(receipt, RESOLUTION_TYP);
    if (!verified.ok) return problem(`resolution receipt ${verified.problem}`);
    const claims = verified.payload as Partial<ResolutionClaims>;
    const revision = data.revision as number;
    const wrong = this.mismatches(claims, line, facts, revision, [
      ['sub', `${line.stream_id}/r${revision}`],
      ['outcome', opened.outcome],
      ['resolved_at', data.at],
    ]);
    if (wrong.length > 0) return problem(`resolution receipt does not match its event: ${wrong.join('; ')}`);
    const sequences = data.responses as number[];
    const bound = claims.responses ?? [];
    if (bound.length !== sequences.length) return problem(`resolution receipt binds ${bound.length} answers, its event names ${sequences.length}`);
    for (const [i, sequence] of sequences.entries()) {
      const answer = facts?.answers.get(sequence);
      if (!answer || bound[i]!.event_id !== answer.eventId) return problem(`resolution receipt binds ${JSON.stringify(bound[i]!.event_id)} where its event names the answer at sequence ${sequence}`);
      if (bound[i]!.receipt_sha256 !== answer.receiptSha256) return problem(`resolution receipt binds ${answer.eventId} by a hash that is not its receipt's`);
    }
    this.verified += 1;
    return [];
  }
}
