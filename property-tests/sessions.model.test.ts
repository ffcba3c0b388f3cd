import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { TestApp } from '../test/support/app.js';
import { expectError } from '../test/support/envelope.js';
import { useTestApp } from '../test/support/lifecycle.js';
import { display, interactive, owner } from '../test/support/sessions.js';

/**
 * A model of the Session lifecycle and the owner API rules, checked against the real HTTP API over a real
 * database: random sequences of create, GET, PATCH and complete, with random If-Match values and
 * Idempotency-Keys (including replays and reuse with another request).
 */

interface ModelSession {
  id: string;
  mode: 'display' | 'interactive';
  revision: number;
  events: number;
  status: 'active' | 'responded' | 'completed';
  /** scope "<operation> <key>" -> the request it was first used with and the answer it got. */
  keys: Map<string, { request: string; etag: string; body: string }>;
}

interface Model {
  sessions: ModelSession[];
}

interface Real {
  t: TestApp;
}

const etag = (s: ModelSession) => `"${s.revision}.${s.events}"`;

type IfMatchChoice = 'current' | 'stale' | 'weak' | 'missing' | 'star';
const ifMatchChoice = fc.constantFrom<IfMatchChoice>('current', 'current', 'current', 'stale', 'weak', 'missing', 'star');
const keyChoice = fc.option(fc.constantFrom('k1', 'k2', 'k3'), { nil: undefined });

function ifMatchFor(s: ModelSession, choice: IfMatchChoice): string | undefined {
  switch (choice) {
    case 'current':
      return etag(s);
    case 'stale':
      return `"${s.revision}.${s.events + 7}"`;
    case 'weak':
      return `W/${etag(s)}`;
    case 'star':
      return '*';
    case 'missing':
      return undefined;
  }
}

class Create implements fc.AsyncCommand<Model, Real> {
  constructor(readonly mode: 'display' | 'interactive') {}
  check = () => true;
  async run(model: Model, { t }: Real) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/sessions',
      headers: owner(t),
      payload: { interaction: this.mode === 'display' ? display() : interactive() },
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers.etag).toBe('"1.0"');
    model.sessions.push({ id: res.json().id, mode: this.mode, revision: 1, events: 0, status: 'active', keys: new Map() });
  }
  toString = () => `create(${this.mode})`;
}

class Get implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (m: Readonly<Model>) => m.sessions.length > 0;
  async run(model: Model, { t }: Real) {
    const s = model.sessions[this.pick % model.sessions.length]!;
    const res = await t.app.inject({ url: `/v1/sessions/${s.id}`, headers: owner(t) });
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe(etag(s));
    const body = res.json();
    expect(body.revision).toBe(s.revision);
    if (s.mode === 'interactive') expect(body.status).toBe(s.status);
    const events = await t.app.inject({ url: `/v1/sessions/${s.id}/events`, headers: owner(t) });
    expect(events.json().events.map((e: { sequence: number }) => e.sequence)).toEqual(Array.from({ length: s.events }, (_, i) => i + 1));
  }
  toString = () => `get(${this.pick})`;
}

class Change implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly operation: 'publish' | 'complete',
    readonly pick: number,
    readonly ifMatch: IfMatchChoice,
    readonly key: string | undefined,
    readonly title: string,
  ) {}
  check = (m: Readonly<Model>) => m.sessions.length > 0;
  async run(model: Model, { t }: Real) {
    const s = model.sessions[this.pick % model.sessions.length]!;
    const ifMatch = ifMatchFor(s, this.ifMatch);
    const headers = owner(t, {
      ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }),
      ...(this.key === undefined ? {} : { 'idempotency-key': this.key }),
    });
    const res =
      this.operation === 'publish'
        ? await t.app.inject({ method: 'PATCH', url: `/v1/sessions/${s.id}`, headers, payload: { interaction: interactive({ title: this.title }) } })
        : await t.app.inject({ method: 'POST', url: `/v1/sessions/${s.id}/complete`, headers });

    if (ifMatch === undefined || ifMatch === '*') return expectError(res, 428, 'PRECONDITION_REQUIRED');
    const request = `${this.operation === 'publish' ? this.title : ''}|${ifMatch}`;
    const scope = `${this.operation} ${this.key}`;
    const earlier = this.key === undefined ? undefined : s.keys.get(scope);
    if (earlier) {
      if (earlier.request !== request) return expectError(res, 409, 'IDEMPOTENCY_CONFLICT');
      expect(res.statusCode).toBe(200);
      expect(res.headers.etag).toBe(earlier.etag);
      expect(res.body).toBe(earlier.body);
      return;
    }
    if (s.mode === 'display') return expectError(res, 409, 'ACTION_NOT_ALLOWED');
    if (s.status === 'completed') return expectError(res, 409, 'SESSION_COMPLETED');
    if (ifMatch !== etag(s)) return expectError(res, 412, 'SESSION_REVISION_CONFLICT');

    expect(res.statusCode, res.body).toBe(200);
    if (this.operation === 'publish') {
      s.revision += 1;
      s.status = 'active';
    } else {
      s.status = 'completed';
    }
    s.events += 1;
    expect(res.headers.etag).toBe(etag(s));
    expect(res.json()).toMatchObject({ id: s.id, revision: s.revision, status: s.status });
    if (this.key !== undefined) s.keys.set(scope, { request, etag: etag(s), body: res.body });
  }
  toString = () => `${this.operation}(${this.pick}, ${this.ifMatch}, ${this.key}, ${this.title})`;
}

const { t } = useTestApp();

it('the owner API follows the model of the Session lifecycle', async () => {
  const commands = [
    fc.constantFrom<'display' | 'interactive'>('interactive', 'interactive', 'display').map((mode) => new Create(mode)),
    fc.nat().map((pick) => new Get(pick)),
    fc
      .tuple(fc.constantFrom<'publish' | 'complete'>('publish', 'publish', 'complete'), fc.nat(), ifMatchChoice, keyChoice, fc.constantFrom('One', 'Two'))
      .map(([operation, pick, ifMatch, key, title]) => new Change(operation, pick, ifMatch, key, title)),
  ];
  await fc.assert(
    fc.asyncProperty(fc.commands(commands, { maxCommands: 25 }), async (cmds) => {
      await fc.asyncModelRun(() => ({ model: { sessions: [] }, real: { t } }), cmds);
    }),
    { numRuns: 40 },
  );
});
