import { canonicalJson, sha256Hex, type ExportedEvent, type JsonObject, type LinkProblem } from '../../eventstore/index.js';
import type { ReceiptClaims } from '../receipts/index.js';
import { RESPONSE_ACCEPTED, REVISION_PUBLISHED, SESSION_CREATED } from '../sessions/index.js';
import type { Verified } from './keySet.js';

/** An exported line; `opened` only in an export made with --decrypt. */
export interface ExportedLine extends ExportedEvent {
  opened?: Record<string, unknown>;
}

const RECEIPT_TYP = 'svc-receipt+jwt';

/** What a receipt must agree with: the Session's workspace and the hash of each revision it holds. */
interface SessionFacts {
  workspace: unknown;
  revisions: Map<number, string>;
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
    return line.type === SESSION_CREATED || line.type === REVISION_PUBLISHED || line.type === RESPONSE_ACCEPTED;
  }

  /** A Session event: the facts a later receipt is checked against, or a receipt checked. */
  async observe(line: ExportedLine): Promise<LinkProblem[]> {
    const data = JSON.parse(line.data) as JsonObject;
    const opened = line.opened?.sealed as JsonObject | undefined;
    const readable = opened !== undefined && !isErased(opened);
    if (line.type === SESSION_CREATED) {
      const facts: SessionFacts = { workspace: data.workspace_id, revisions: new Map() };
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
    const verified = await this.verify(receipt, RECEIPT_TYP);
    if (!verified.ok) return problem(`receipt ${verified.problem}`);
    const claims = verified.payload as Partial<ReceiptClaims>;
    const facts = this.sessions.get(line.stream_id);
    const revision = data.revision as number;
    const expected: Array<[keyof ReceiptClaims, unknown]> = [
      ['aud', facts?.workspace],
      ['workspace_id', facts?.workspace],
      ['session_id', line.stream_id],
      ['event_id', line.event_id],
      ['jti', line.event_id],
      ['revision', revision],
      ['step_id', `${line.stream_id}/r${revision}`],
      ['action_id', opened.action_id],
      ['input_sha256', sha256Hex(canonicalJson(opened.data))],
      ['accepted_at', data.at],
    ];
    const revisionHash = facts?.revisions.get(revision);
    if (revisionHash !== undefined) expected.push(['revision_sha256', revisionHash]);
    if (this.issuer === undefined) this.issuerUnchecked += 1;
    else expected.push(['iss', this.issuer]);
    const wrong = expected.filter(([name, value]) => claims[name] !== value).map(([name, value]) => `${name} ${JSON.stringify(claims[name])} (the event's: ${JSON.stringify(value)})`);
    if (wrong.length > 0) return problem(`receipt does not match its event: ${wrong.join('; ')}`);
    this.verified += 1;
    return [];
  }
}
