import { LRUCache } from 'lru-cache';
import { backoffDelayMs, sleep, type Backoff } from './backoff.js';
import { ClientError, isServiceError } from './errors.js';
import { send, type Call, type Transport } from './http.js';
import { verifyReceipt, verifyResolution, type ReceiptKeySource } from './receipts.js';
import { WAIT_SECONDS_MAX } from './waits.js';
import type {
  AcceptedResponse,
  CreatedSession,
  DecisionRule,
  NotifyPlan,
  Deliveries,
  FeedEvent,
  FeedPage,
  Interaction,
  InteractiveSession,
  Me,
  ReceiptClaims,
  ReissuedLink,
  ResolutionClaims,
  Session,
  SessionDecision,
  SessionEvents,
  SlackSetting,
  SessionList,
  WebhookEndpoint,
  WebhookEndpointVerified,
  WebhookOverview,
  WebhookRegistration,
  WebhookRotation,
} from './types.js';

export interface ClientOptions {
  /** Where the service answers, for example `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** An owner key or a developer API key. */
  apiKey: string;
  /** The fetch to call the service with; the global one unless given. */
  fetch?: typeof fetch;
  /** For a call whose outcome is unknown: tries in all (4) and the waits between them (0.25 s doubling to 4 s). */
  retry?: Partial<Backoff & { attempts: number }>;
  /** waitForResponse's waits between reads while nothing changes (0.5 s doubling to 10 s). */
  poll?: Partial<Backoff>;
  /** The service's public origin, which issues receipts; the origin of baseUrl unless given. */
  issuer?: string;
  /** The workspace receipts are issued to; unless given, the one the service names for apiKey (GET /v1/me, read once). */
  workspaceId?: string;
  /** Where receipts' keys come from: the service's key set (GET /.well-known/svc-receipt-keys.json, read once) unless given. */
  receiptKeys?: ReceiptKeySource;
}

export interface CallOptions {
  signal?: AbortSignal;
}

/** A create, and a publish: whom to notify of the revision (owner and developer workspaces), and the decision they make if several decide. */
export interface NotifyOptions {
  notify?: NotifyPlan;
  decision?: DecisionRule;
}

/** The plan and the decision as a create's or a publish's body carries them. */
const planOf = (options: NotifyOptions): object => ({
  ...(options.notify ? { notify: options.notify } : {}),
  ...(options.decision ? { decision: options.decision } : {}),
});

export interface CreateOptions extends CallOptions, NotifyOptions {
  /**
   * Your own reference for the Session (1 to 200 visible ASCII characters), unique in the workspace
   * while the Session lives. With it, a create whose outcome is unknown is found again instead of
   * reported: see createSession.
   */
  clientReferenceId?: string;
}

/** GET /v1/sessions: a page after `after` (a next_cursor), of one status or of the Session holding a reference. */
export interface ListOptions extends CallOptions {
  after?: string;
  /** 1 to 100; the service's default (50) unless given. */
  limit?: number;
  status?: 'active' | 'responded' | 'completed';
  clientReferenceId?: string;
}

export interface ChangeOptions extends CallOptions {
  /** The ETag the change is made against; the last one this client read for the Session unless given. */
  ifMatch?: string;
  /** Names this change so that a repeat is recognised; generated unless given, and reused by every retry. */
  idempotencyKey?: string;
}

export interface RegisterOptions extends CallOptions {
  /** The Session events the endpoint receives: response.accepted (always listed) and, if listed, session.expired. */
  events?: WebhookEndpoint['events'];
}

export interface WaitOptions extends CallOptions {
  /** Give up after this long, with ClientError `WAIT_TIMEOUT`; no limit unless given. */
  timeoutMs?: number;
  /** Between reads, against a service that does not hold requests (Prefer: wait not applied). */
  poll?: Partial<Backoff>;
  /** How long each read asks the service to hold it (Prefer: wait), in seconds: at most (and unless given) WAIT_SECONDS_MAX. */
  waitSeconds?: number;
}

export interface FeedOptions extends CallOptions {
  /** A cursor given by the feed (FeedItem.cursor, or a page's next_cursor); from the first event the workspace holds unless given. */
  after?: string;
  /** Events a page brings, 1 to 500 (the service's default: 100). */
  limit?: number;
  /** At the end of the feed, how long each read asks to be held until an event arrives; as in WaitOptions. */
  waitSeconds?: number;
  /** Between reads at the end, against a service that does not hold requests. */
  poll?: Partial<Backoff>;
}

/** One event of the workspace feed, and where to resume after it (`after`). */
export interface FeedItem {
  event: FeedEvent;
  /**
   * The cursor to resume with: after this event when it ended its page; otherwise before its page,
   * so a reader that resumes from it may see the rest of that page again (at least once, never lost).
   */
  cursor: string;
}

/** The answer to the Session's current revision. */
export interface Answered {
  session: InteractiveSession;
  response: AcceptedResponse;
  /** The response's decision receipt (compact JWS); verify it with verifyReceipt. */
  receipt: string | null;
  etag: string;
}

/** The resolution of the current revision's decision by several people. */
export interface Decided {
  session: InteractiveSession;
  decision: SessionDecision & { outcome: 'approved' | 'vetoed' };
  /** The resolution receipt (compact JWS); verify it, and the receipts it binds, with verifyDecision. */
  receipt: string | null;
  etag: string;
}

/** One stored revision, as GET /v1/sessions/{id}/surfaces/{revision} returns it. */
export type SurfaceRevision = Pick<Session, 'id' | 'revision' | 'interaction' | 'response_schema'>;

/** What the client last saw of a Session: its ETag, and its body unless it only created it. */
interface Known {
  etag: string;
  /** null: created by this client and not read since; as created, it is active and unanswered. */
  session: Session | null;
  /** When its link stops taking answers; undefined from a service that does not say (one from before the field). */
  linkExpiresAt: string | undefined;
}

/** A path of the API from its segments, each one escaped. */
const route = (...segments: string[]) => `/${segments.map(encodeURIComponent).join('/')}`;

/**
 * The owner API of the hosted handoff service, typed from its contract. Reads are conditional
 * (If-None-Match), changes carry If-Match from the last read, and a change whose outcome is
 * unknown is retried with the same Idempotency-Key, body and If-Match. Every failure is a
 * HandoffError (see errors.ts).
 */
export class HandoffClient {
  private readonly transport: Transport;
  private readonly poll: Backoff;
  private readonly issuer: string;
  private readonly receiptKeys: ReceiptKeySource;
  /** The audience of this credential's receipts: given, or read once from GET /v1/me (a failed read is tried again next time). */
  private workspaceId: Promise<string> | undefined;
  /** Bounded: an agent that runs for months must not keep every Session it ever touched. */
  private readonly known = new LRUCache<string, Known>({ max: 1000 });

  constructor(options: ClientOptions) {
    this.transport = {
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      apiKey: options.apiKey,
      fetch: options.fetch ?? globalThis.fetch,
      retry: { attempts: 4, minDelayMs: 250, maxDelayMs: 4_000, ...options.retry },
    };
    this.poll = { minDelayMs: 500, maxDelayMs: 10_000, ...options.poll };
    this.issuer = options.issuer ?? new URL(options.baseUrl).origin;
    this.receiptKeys = options.receiptKeys ?? { keysUrl: `${this.transport.baseUrl}/.well-known/svc-receipt-keys.json`, fetch: this.transport.fetch };
    this.workspaceId = options.workspaceId === undefined ? undefined : Promise.resolve(options.workspaceId);
  }

  private async call<T>(call: Call): Promise<{ body: T; etag: string | null }> {
    const reply = await send<T>(this.transport, call);
    return { body: reply.body as T, etag: reply.headers.get('etag') };
  }

  private async get<T>(path: string, options: CallOptions): Promise<T> {
    return (await this.call<T>({ method: 'GET', path, expect: [200], repeatable: true, signal: options.signal })).body;
  }

  private remember(sessionId: string, etag: string | null, session: Session | null, linkExpiresAt: string | undefined): void {
    if (etag !== null) this.known.set(sessionId, { etag, session, linkExpiresAt });
  }

  /** The workspace the client's credential acts in (the audience of its receipts), and its kind. */
  async me(options: CallOptions = {}): Promise<Me> {
    return this.get<Me>('/v1/me', options);
  }

  /** Shared by concurrent verifications, so read without any one caller's signal. */
  private audience(): Promise<string> {
    this.workspaceId ??= this.me().then(
      (me) => me.workspace_id,
      (error: unknown) => {
        this.workspaceId = undefined;
        throw error;
      },
    );
    return this.workspaceId;
  }

  /** The last ETag this client saw for the Session, if any. */
  etagOf(sessionId: string): string | undefined {
    return this.known.get(sessionId)?.etag;
  }

  /**
   * Creates a Session. Without `clientReferenceId` it is never retried: the service refuses
   * Idempotency-Key on create (the human link is stored only as a hash), so a repeat could create a
   * second Session, and an unknown outcome is reported as ClientError `OUTCOME_UNKNOWN`.
   *
   * With `clientReferenceId`, an unknown outcome (the connection failed after the request may have
   * left, or a gateway's 5xx page) is settled by the reference, which one live Session of the
   * workspace holds at most: the client looks it up (GET /v1/sessions?client_reference_id=) and,
   * when the lost create took effect, returns that Session with a new human link (reissueLink: the
   * lost answer's link was never seen, and is revoked); when it did not, it creates again (a
   * create of before that commits meanwhile answers 409 CLIENT_REFERENCE_IN_USE naming it, and is
   * found again the same way). A reference another create holds is still 409 on the first try.
   */
  async createSession(interaction: Interaction, options: CreateOptions = {}): Promise<CreatedSession> {
    const reference = options.clientReferenceId;
    const body = {
      interaction,
      ...planOf(options),
      ...(reference === undefined ? {} : { client_reference_id: reference }),
    };
    if (reference === undefined) return this.postSession(interaction, body, options.signal);
    const attempts = Math.max(1, this.transport.retry.attempts);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.postSession(interaction, body, options.signal);
      } catch (error) {
        // After a lost answer, the reference is held by the create whose answer was lost.
        if (attempt > 1 && isServiceError(error, 'CLIENT_REFERENCE_IN_USE') && error.details.session_id !== undefined) {
          return this.foundAgain(error.details.session_id, options.signal);
        }
        if (!(error instanceof ClientError && error.code === 'OUTCOME_UNKNOWN') || attempt >= attempts) throw error;
      }
      const [found] = (await this.listSessions({ clientReferenceId: reference, limit: 1, ...(options.signal ? { signal: options.signal } : {}) })).data;
      if (found) return this.foundAgain(found.id, options.signal);
      await sleep(backoffDelayMs(this.transport.retry, attempt - 1), options.signal);
    }
  }

  private async postSession(interaction: Interaction, body: object, signal: AbortSignal | undefined): Promise<CreatedSession> {
    const { body: created, etag } = await this.call<CreatedSession>({ method: 'POST', path: '/v1/sessions', body, expect: [201], repeatable: false, signal });
    // A display Session never changes, so only an interactive one is worth remembering as created.
    if (interaction.mode === 'interactive') this.remember(created.id, etag, null, created.link_expires_at);
    return created;
  }

  /** A Session whose create answer was lost, as a create answers it: with a link of its own, the lost one revoked. */
  private async foundAgain(sessionId: string, signal: AbortSignal | undefined): Promise<CreatedSession> {
    const { id, client_reference_id, revision, human_url, link_expires_at } = await this.reissueLink(sessionId, signal ? { signal } : {});
    return { id, ...(client_reference_id === undefined ? {} : { client_reference_id }), revision, human_url, link_expires_at };
  }

  /** A page of the workspace's Sessions, newest first (each a summary, never its link); pass `next_cursor` as `after` to read on. */
  async listSessions(options: ListOptions = {}): Promise<SessionList> {
    const query = new URLSearchParams();
    if (options.after !== undefined) query.set('after', options.after);
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    if (options.status !== undefined) query.set('status', options.status);
    if (options.clientReferenceId !== undefined) query.set('client_reference_id', options.clientReferenceId);
    const text = query.toString();
    return this.get<SessionList>(`/v1/sessions${text === '' ? '' : `?${text}`}`, options);
  }

  /**
   * A new human link for the Session (a leaked or lost one): the old link opens nothing from now
   * on; responders' own links stay. Retried when the outcome is unknown: a repeat only makes
   * another link and revokes the one whose answer was lost.
   */
  async reissueLink(sessionId: string, options: CallOptions = {}): Promise<ReissuedLink> {
    const { body, etag } = await this.call<ReissuedLink>({ method: 'POST', path: route('v1', 'sessions', sessionId, 'link'), expect: [200], repeatable: true, signal: options.signal });
    const { human_url: _link, ...session } = body;
    this.remember(sessionId, etag, session, body.link_expires_at);
    return body;
  }

  /**
   * One conditional read: If-None-Match with the last ETag, so an unchanged Session costs a 304
   * and no body. `createdCounts`: a tag from create alone may be sent too (its 304 means "still as
   * created"), for a caller that needs no body while nothing changed.
   */
  private async read(sessionId: string, signal: AbortSignal | undefined, createdCounts = false, waitSeconds?: number): Promise<Known & { changed: boolean; held: boolean }> {
    const known = this.known.get(sessionId);
    const conditional = known !== undefined && (known.session !== null || createdCounts);
    const prefer: Record<string, string> = conditional && waitSeconds !== undefined ? { prefer: `wait=${waitSeconds}` } : {};
    const reply = await send<Session>(this.transport, {
      method: 'GET',
      path: route('v1', 'sessions', sessionId),
      headers: conditional ? { 'if-none-match': known.etag, ...prefer } : {},
      expect: [200, 304],
      repeatable: true,
      signal,
    });
    const held = reply.headers.get('preference-applied') !== null;
    if (reply.status === 304 && conditional) return { ...known, changed: false, held };
    const etag = reply.headers.get('etag');
    if (reply.status !== 200 || reply.body === undefined || etag === null) {
      throw new ClientError('UNEXPECTED_RESPONSE', `GET ${sessionId} answered ${reply.status} without a body and an ETag.`, null, reply.status);
    }
    this.remember(sessionId, etag, reply.body, reply.body.link_expires_at);
    return { etag, session: reply.body, linkExpiresAt: reply.body.link_expires_at, changed: true, held };
  }

  async getSession(sessionId: string, options: CallOptions = {}): Promise<Session> {
    return (await this.read(sessionId, options.signal)).session!;
  }

  /** One stored revision exactly as the person saw it. */
  async getSurface(sessionId: string, revision: number, options: CallOptions = {}): Promise<SurfaceRevision> {
    return this.get<SurfaceRevision>(route('v1', 'sessions', sessionId, 'surfaces', String(revision)), options);
  }

  private async ifMatch(sessionId: string, options: ChangeOptions): Promise<string> {
    if (options.ifMatch !== undefined) return options.ifMatch;
    const known = this.known.get(sessionId);
    return known ? known.etag : (await this.read(sessionId, options.signal)).etag;
  }

  /** PATCH, complete and extend: retried on an unknown outcome with the same key, body and If-Match. */
  private async change(sessionId: string, path: string, method: 'PATCH' | 'POST', body: unknown, options: ChangeOptions): Promise<InteractiveSession> {
    const headers = {
      'if-match': await this.ifMatch(sessionId, options),
      'idempotency-key': options.idempotencyKey ?? crypto.randomUUID(),
    };
    const reply = await this.call<InteractiveSession>({ method, path, body, headers, expect: [200], repeatable: true, signal: options.signal });
    this.remember(sessionId, reply.etag, reply.body, reply.body.link_expires_at);
    return reply.body;
  }

  /** Publishes the next revision of an interactive Session (allowed while active or responded). */
  publish(sessionId: string, interaction: Interaction, options: ChangeOptions & NotifyOptions = {}): Promise<InteractiveSession> {
    return this.change(sessionId, route('v1', 'sessions', sessionId), 'PATCH', { interaction, ...planOf(options) }, options);
  }

  /** Completes an interactive Session: it takes no further answer or revision. */
  complete(sessionId: string, options: ChangeOptions = {}): Promise<InteractiveSession> {
    return this.change(sessionId, route('v1', 'sessions', sessionId, 'complete'), 'POST', undefined, options);
  }

  /**
   * Moves the Session's link deadline later (never earlier; at most twice the link's first lifetime
   * after the Session's creation); its purge moves with it. Later waits run to the new deadline.
   */
  extend(sessionId: string, linkExpiresAt: string | Date, options: ChangeOptions = {}): Promise<InteractiveSession> {
    const link_expires_at = typeof linkExpiresAt === 'string' ? linkExpiresAt : linkExpiresAt.toISOString();
    return this.change(sessionId, route('v1', 'sessions', sessionId, 'extend'), 'POST', { link_expires_at }, options);
  }

  async deliveries(sessionId: string, options: CallOptions = {}): Promise<Deliveries> {
    return this.get<Deliveries>(route('v1', 'sessions', sessionId, 'deliveries'), options);
  }

  /** Queues an accepted Event again to the verified endpoint; a delivery already pending is kept, so a repeat is harmless. */
  async redeliver(sessionId: string, eventId: string, options: CallOptions = {}): Promise<void> {
    await this.call<undefined>({ method: 'POST', path: route('v1', 'sessions', sessionId, 'events', eventId, 'redeliver'), expect: [202], repeatable: true, signal: options.signal });
  }

  /**
   * Registers (or replaces) the workspace's webhook endpoint; it stays pending until verified. The
   * first registration shows the signing secret once. Never retried: a repeat would replace the
   * endpoint again; after an unknown outcome, read getWebhook and rotate for a visible secret.
   */
  async registerWebhook(url: string, options: RegisterOptions = {}): Promise<WebhookRegistration> {
    const body = options.events === undefined ? { url } : { url, events: options.events };
    return (await this.call<WebhookRegistration>({ method: 'PUT', path: '/v1/webhook', body, expect: [201], repeatable: false, signal: options.signal })).body;
  }

  async getWebhook(options: CallOptions = {}): Promise<WebhookOverview> {
    return this.get<WebhookOverview>('/v1/webhook', options);
  }

  /** Sends the endpoint a fresh signed challenge; it must echo it to become verified (for 30 days). */
  async verifyWebhookEndpoint(options: CallOptions = {}): Promise<WebhookEndpointVerified> {
    return (await this.call<WebhookEndpointVerified>({ method: 'POST', path: '/v1/webhook/verify', expect: [200], repeatable: true, signal: options.signal })).body;
  }

  /**
   * Sets the workspace's Slack incoming webhook, where a plan's `slack: true` posts. Retried on an
   * unknown outcome: the same URL again changes nothing.
   */
  async setSlackWebhook(webhookUrl: string, options: CallOptions = {}): Promise<SlackSetting> {
    return (await this.call<SlackSetting>({ method: 'PUT', path: '/v1/notifications/slack', body: { webhook_url: webhookUrl }, expect: [200], repeatable: true, signal: options.signal })).body;
  }

  async getSlackWebhook(options: CallOptions = {}): Promise<SlackSetting> {
    return this.get<SlackSetting>('/v1/notifications/slack', options);
  }

  /** Removes the workspace's Slack webhook (Slack messages are refused from then on); retried: removing none changes nothing. */
  async removeSlackWebhook(options: CallOptions = {}): Promise<SlackSetting> {
    return (await this.call<SlackSetting>({ method: 'DELETE', path: '/v1/notifications/slack', expect: [200], repeatable: true, signal: options.signal })).body;
  }

  /** A new signing secret, shown once; the previous one keeps signing for 24 hours. Never retried: each call creates a secret. */
  async rotateWebhookSecret(options: CallOptions = {}): Promise<WebhookRotation> {
    return (await this.call<WebhookRotation>({ method: 'POST', path: '/v1/webhook/secrets/rotate', expect: [201], repeatable: false, signal: options.signal })).body;
  }

  /**
   * Resolves with the answer to the Session's current revision: at once if it has one, else once
   * the person answers. Each read is conditional (If-None-Match) and asks the service to hold it
   * until the Session changes (Prefer: wait, up to waitSeconds), so the answer arrives as it is
   * accepted and a quiet Session costs one request a wait; against a service that answers without
   * holding, the reads are spaced as `poll` says, growing with jitter while nothing changes. No
   * wait goes past the Session's link expiry. Rejects with the signal's reason when it aborts,
   * ClientError `WAIT_TIMEOUT` after timeoutMs, `NO_RESPONSE_POSSIBLE` for a display Session or one
   * completed before its current revision was answered, and `LINK_EXPIRED` when a read at or after
   * the link's expiry (by this machine's clock) finds the current revision unanswered: no answer
   * can come.
   */
  waitForResponse(sessionId: string, options: WaitOptions = {}): Promise<Answered> {
    return this.waitFor(sessionId, options, answerOf, true);
  }

  /**
   * Resolves once the current revision's decision by several people resolves (docs/decisions.md):
   * approved by the required number, or vetoed. Reads and waits as waitForResponse does; rejects
   * as it does, and with `NO_RESPONSE_POSSIBLE` for a revision that carries no decision.
   */
  waitForDecision(sessionId: string, options: WaitOptions = {}): Promise<Decided> {
    // Whether the revision has a decision at all is in the body: the first read is not conditional on the create's tag.
    return this.waitFor(sessionId, options, decidedOf, false);
  }

  /**
   * Reads the Session, held while nothing changes, until `settled` says what was awaited came (or
   * throws that it cannot); `createdCounts` as read() takes it.
   */
  private async waitFor<T>(sessionId: string, options: WaitOptions, settled: (sessionId: string, known: Known, now: Date) => T | undefined, createdCounts: boolean): Promise<T> {
    const poll = { ...this.poll, ...options.poll };
    const controller = new AbortController();
    const stop = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) stop();
    options.signal?.addEventListener('abort', stop, { once: true });
    const deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => controller.abort(new ClientError('WAIT_TIMEOUT', `No answer to ${sessionId} within ${options.timeoutMs} ms.`)), options.timeoutMs);
    try {
      let expiresAt: string | undefined;
      for (let quiet = 0, first = true; ; first = false) {
        // The first read is not held: what the client knows may already be the answer (a 304 says
        // so at once). A held read ends by the deadline and the link's expiry at the latest.
        const until = Math.min(deadline ?? Infinity, expiryMs(expiresAt));
        const hold = first || until <= Date.now() ? undefined : heldFor(options.waitSeconds, until);
        const read = await this.read(sessionId, controller.signal, createdCounts, hold);
        expiresAt = read.linkExpiresAt;
        const answered = settled(sessionId, read, new Date());
        if (answered) return answered;
        if (read.held) continue;
        quiet = read.changed ? 0 : quiet + 1;
        // Never past the expiry: the read just after it is the last one.
        const untilExpiry = expiryMs(read.linkExpiresAt) - Date.now();
        await sleep(Math.max(0, Math.min(backoffDelayMs(poll, quiet), untilExpiry)), controller.signal);
      }
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', stop);
    }
  }

  /** The Session's events list, as GET /v1/sessions/{id}/events answers it. */
  events(sessionId: string, options?: CallOptions): Promise<SessionEvents>;
  /**
   * Walks the workspace's event feed (GET /v1/events) from `after`, page by page, and at its end
   * waits for the next event (Prefer: wait, as waitForResponse does; spaced by `poll` against a
   * service that does not hold). It never ends on its own: stop with the signal (the iteration
   * then rejects with its reason) or by leaving the loop.
   */
  events(options?: FeedOptions): AsyncIterableIterator<FeedItem>;
  events(sessionIdOrFeed?: string | FeedOptions, options: CallOptions = {}): Promise<SessionEvents> | AsyncIterableIterator<FeedItem> {
    if (typeof sessionIdOrFeed === 'string') return this.get<SessionEvents>(route('v1', 'sessions', sessionIdOrFeed, 'events'), options);
    return this.feed(sessionIdOrFeed ?? {});
  }

  private async *feed(options: FeedOptions): AsyncIterableIterator<FeedItem> {
    const poll = { ...this.poll, ...options.poll };
    let after = options.after;
    for (let quiet = 0; ; ) {
      const query = new URLSearchParams();
      if (after !== undefined) query.set('after', after);
      if (options.limit !== undefined) query.set('limit', String(options.limit));
      const atEnd = quiet > 0;
      const reply = await send<FeedPage>(this.transport, {
        method: 'GET',
        path: `/v1/events${query.size > 0 ? `?${query}` : ''}`,
        headers: atEnd ? { prefer: `wait=${heldFor(options.waitSeconds, undefined)}` } : {},
        expect: [200],
        repeatable: true,
        signal: options.signal,
      });
      const page = reply.body!;
      const before = after;
      after = page.next_cursor;
      for (const [i, event] of page.data.entries()) yield { event, cursor: i === page.data.length - 1 ? page.next_cursor : (before ?? '') };
      if (page.data.length > 0 || before !== after) {
        quiet = 0;
        continue;
      }
      // The end: the next read waits there; one the service did not hold is spaced out first.
      if (atEnd && reply.headers.get('preference-applied') === null) await sleep(backoffDelayMs(poll, quiet - 1), options.signal);
      quiet++;
    }
  }

  /**
   * Verifies a response's receipt against the service's key set and binds it to the response and
   * to the revision it answered (read from the service); resolves with the receipt's claims. The
   * audience is the Session's workspace: `audience` when given (a claimed trial's Session names
   * its trial's workspace), else the credential's (ClientOptions.workspaceId, else GET /v1/me), so
   * the owner key's and a developer key's receipts verify alike.
   */
  async verifyReceipt(
    sessionId: string,
    response: AcceptedResponse,
    options: CallOptions & { currentDate?: Date; audience?: string } = {},
  ): Promise<ReceiptClaims> {
    if (response.receipt === null) throw new ClientError('RECEIPT_INVALID', 'The response carries no receipt.', 'missing');
    const [surface, audience] = await Promise.all([this.getSurface(sessionId, response.revision, options), options.audience ?? this.audience()]);
    return verifyReceipt(response.receipt, {
      ...this.receiptKeys,
      expected: { issuer: this.issuer, audience, sessionId, response, interaction: surface.interaction },
      currentDate: options.currentDate,
    });
  }

  /**
   * Verifies the resolution receipt of the Session's current decision against the service's key
   * set: that it resolves this revision as the Session says, that each answer it binds is one of
   * the Session's with the receipt whose hash it names, and each of those receipts on its own
   * (verifyReceipt). Resolves with the resolution's claims and the deciding answers' claims, in its
   * order; rejects with ClientError `RECEIPT_INVALID` (a reason naming what failed), or `NO_RESPONSE_POSSIBLE` when undecided.
   */
  async verifyDecision(
    sessionId: string,
    options: CallOptions & { currentDate?: Date; audience?: string } = {},
  ): Promise<{ resolution: ResolutionClaims; deciding: ReceiptClaims[] }> {
    const session = (await this.getSession(sessionId, options)) as InteractiveSession;
    const decision = session.decision;
    if (!decision || decision.outcome === null) throw new ClientError('NO_RESPONSE_POSSIBLE', `${sessionId}'s current revision has no resolved decision.`);
    if (decision.receipt === null) throw new ClientError('RECEIPT_INVALID', 'The decision carries no receipt.', 'missing');
    const [surface, audience] = await Promise.all([this.getSurface(sessionId, session.revision, options), options.audience ?? this.audience()]);
    const { claims, deciding } = await verifyResolution(decision.receipt, {
      ...this.receiptKeys,
      expected: { issuer: this.issuer, audience, sessionId, revision: session.revision, outcome: decision.outcome, responses: session.responses, interaction: surface.interaction },
      currentDate: options.currentDate,
    });
    const receipts = await Promise.all(deciding.map((response) => this.verifyReceipt(sessionId, response, { ...options, audience })));
    return { resolution: claims, deciding: receipts };
  }
}

/** When a link expires, in ms since the epoch; never when the service does not say (a service from before the field). */
function expiryMs(linkExpiresAt: string | undefined): number {
  const ms = linkExpiresAt === undefined ? NaN : Date.parse(linkExpiresAt);
  return Number.isNaN(ms) ? Infinity : ms;
}

/** Whether a Session's link takes no more answers at `now`, by the expiry the service states. */
export const linkExpired = (session: { link_expires_at?: string | undefined }, now: Date): boolean => now.getTime() >= expiryMs(session.link_expires_at);

/** The answer to the current revision (read at `now`), undefined while one may still come; throws when none can. */
function answerOf(sessionId: string, known: Known, now: Date): Answered | undefined {
  const { session } = known;
  if (session !== null) {
    if (session.status === undefined) throw new ClientError('NO_RESPONSE_POSSIBLE', `${sessionId} is a display Session: it takes no answer.`);
    const interactive = session as InteractiveSession;
    const latest = interactive.responses.at(-1);
    if (latest && latest.revision === interactive.revision) return { session: interactive, response: latest, receipt: latest.receipt, etag: known.etag };
    if (interactive.status === 'completed') {
      throw new ClientError('NO_RESPONSE_POSSIBLE', `${sessionId} was completed before revision ${interactive.revision} was answered.`);
    }
  }
  if (linkExpired({ link_expires_at: known.linkExpiresAt }, now)) {
    throw new ClientError('LINK_EXPIRED', `${sessionId}'s link expired at ${known.linkExpiresAt} before its current revision was answered.`);
  }
  return undefined;
}

/** The current revision's decision once resolved, undefined while it may still resolve; throws when it cannot. */
function decidedOf(sessionId: string, known: Known, now: Date): Decided | undefined {
  const { session } = known;
  if (session !== null) {
    const decision = session.decision;
    if (session.status === undefined || !decision) throw new ClientError('NO_RESPONSE_POSSIBLE', `${sessionId}'s current revision is not decided by several people.`);
    const interactive = session as InteractiveSession;
    if (decision.outcome !== null) return { session: interactive, decision: decision as Decided['decision'], receipt: decision.receipt, etag: known.etag };
    if (interactive.status === 'completed') throw new ClientError('NO_RESPONSE_POSSIBLE', `${sessionId} was completed before its decision resolved.`);
  }
  if (linkExpired({ link_expires_at: known.linkExpiresAt }, now)) {
    throw new ClientError('LINK_EXPIRED', `${sessionId}'s link expired at ${known.linkExpiresAt} before its decision resolved.`);
  }
  return undefined;
}

/** What a read asks to be held for: `asked` (at most WAIT_SECONDS_MAX), and no longer than what is left before `deadline`. */
function heldFor(asked: number | undefined, deadline: number | undefined): number {
  const seconds = Math.min(WAIT_SECONDS_MAX, Math.max(1, Math.floor(asked ?? WAIT_SECONDS_MAX)));
  return deadline === undefined ? seconds : Math.max(1, Math.min(seconds, Math.ceil((deadline - Date.now()) / 1000)));
}

export function createClient(options: ClientOptions): HandoffClient {
  return new HandoffClient(options);
}
