import { describe, expect, it } from 'vitest';
import { committedContract } from '../../src/openapi.js';
import { contractChecker, pointer } from '../support/contract.js';
import { useTestApp } from '../support/lifecycle.js';
import { createSession, interactive, owner } from '../support/sessions.js';

/**
 * The committed contract says enough for a generated client: every operation named and summed
 * up, with an example request and answer valid against their schemas, what each status means,
 * and the headers each answer writes and each request reads.
 */

interface Media {
  schema: object & { $ref?: string };
  example?: unknown;
  examples?: Record<string, { summary: string; value: { error: { code: string; message: string } } }>;
}
interface Response {
  description: string;
  headers?: Record<string, { $ref: string }>;
  content?: Record<string, Media>;
}
interface Operation {
  operationId: string;
  summary: string;
  tags: string[];
  parameters?: Array<{ $ref?: string; in?: string; name?: string }>;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, Response>;
}
interface Contract {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
  tags: Array<{ name: string; description: string }>;
  components: { headers: Record<string, object>; parameters: Record<string, { name: string; required?: boolean }> };
}

const contract = JSON.parse(await committedContract()) as Contract;

/** Every operation of the document, its paths' and its webhooks', with where it is. */
const operations = (['paths', 'webhooks'] as const).flatMap((section) =>
  Object.entries(contract[section]).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ at: [section, path, method], op }))),
);
const byId = (id: string): Operation => operations.find(({ op }) => op.operationId === id)!.op;

/** Each example of the document with the pointer of the schema it must meet. */
const examples = operations.flatMap(({ at, op }) => [
  ...Object.entries(op.requestBody?.content ?? {}).map(([type, media]) => ({ schema: pointer(...at, 'requestBody', 'content', type, 'schema'), media })),
  ...Object.entries(op.responses).flatMap(([status, response]) =>
    Object.entries(response.content ?? {}).map(([type, media]) => ({ schema: pointer(...at, 'responses', status, 'content', type, 'schema'), media })),
  ),
]);

describe('the operations', () => {
  it('has the routes and the webhooks, each with a camelCase operationId of its own and a one-line summary', () => {
    expect(operations.length).toBeGreaterThanOrEqual(22);
    const ids = operations.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { at, op } of operations) {
      expect(op.operationId, at.join(' ')).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.summary, at.join(' ')).toMatch(/^[A-Z][^\n]{10,120}$/);
    }
    expect(byId('createSession')).toBe(contract.paths['/v1/sessions']!.post);
    expect(Object.keys(contract.webhooks)).toEqual(['response.accepted', 'session.expired', 'decision.resolved', 'svc.webhook.verification']);
  });

  it("lists each operation under one tag, its capability's, declared with what it lets an integrator do", () => {
    const declared = contract.tags.map((tag) => tag.name);
    expect(new Set(declared).size).toBe(declared.length);
    for (const tag of contract.tags) expect(tag.description, tag.name).toMatch(/^[A-Z].{20,}\.$/);
    for (const { at, op } of operations) {
      expect(op.tags, at.join(' ')).toHaveLength(1);
      expect(declared, at.join(' ')).toContain(op.tags[0]);
    }
    expect(new Set(operations.flatMap(({ op }) => op.tags))).toEqual(new Set(declared));
    expect(byId('createSession').tags).toEqual(['Sessions']);
    expect(byId('receiveAcceptedResponse').tags).toEqual(['Webhooks']);
  });

  it('says what every status means: no answer is left with a default description', () => {
    for (const { at, op } of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        expect(response.description, `${at.join(' ')} ${status}`).toMatch(/^\S.{8,}/);
        expect(response.description).not.toBe('Default Response');
      }
    }
    expect(byId('publishRevision').responses['412']!.description).toMatch(/^SESSION_REVISION_CONFLICT/);
    expect(byId('verifyWebhook').responses['422']!.description).toMatch(/^WEBHOOK_VERIFICATION_FAILED/);
  });
});

describe('the examples', () => {
  const check = contractChecker(contract);

  it('has an example request on each operation that takes a body, and an example answer on each', () => {
    for (const { at, op } of operations) {
      const exampled = (content: Record<string, Media> = {}) => Object.values(content).some((media) => media.example !== undefined);
      if (op.requestBody) expect(exampled(op.requestBody.content), at.join(' ')).toBe(true);
      const answered = Object.values(op.responses).filter((response) => exampled(response.content));
      const withBody = Object.entries(op.responses).filter(([status, response]) => !status.startsWith('4') && !status.startsWith('5') && response.content);
      if (withBody.length > 0) expect(answered.length, at.join(' ')).toBeGreaterThan(0);
    }
    expect(examples.filter(({ media }) => media.example !== undefined).length).toBeGreaterThanOrEqual(24);
  });

  it('validates each example against its schema, as the routes validate', () => {
    for (const { schema, media } of examples) {
      if (media.example !== undefined) expect(check(schema, media.example), schema).toEqual([]);
      for (const [name, example] of Object.entries(media.examples ?? {})) expect(check(schema, example.value), `${schema} ${name}`).toEqual([]);
    }
  });

  it('shows the body of every refusal an operation declares: each code its status names, in the envelope', () => {
    const refusals = operations
      .filter(({ at }) => at[0] === 'paths')
      .flatMap(({ at, op }) => Object.entries(op.responses).filter(([status]) => Number(status) >= 400).map(([status, response]) => ({ at: [...at, status].join(' '), response })));
    expect(refusals.length).toBeGreaterThan(100);
    for (const { at, response } of refusals) {
      const media = Object.values(response.content ?? {})[0];
      expect(media?.example ?? media?.examples, at).toBeDefined();
      if (media!.schema.$ref !== '#/components/schemas/ErrorEnvelope') continue;
      const named = [...response.description.matchAll(/\b([A-Z][A-Z_]{3,}):/g)].map((match) => match[1]);
      expect(new Set(Object.values(media!.examples!).map((example) => example.value.error.code)), at).toEqual(new Set(named));
    }
  });

  it('refuses an example that breaks its schema (the check can fail)', () => {
    const create = pointer('paths', '/v1/sessions', 'post', 'requestBody', 'content', 'application/json', 'schema');
    const { interaction } = contract.paths['/v1/sessions']!.post!.requestBody!.content['application/json']!.example as { interaction: object };
    expect(check(create, { interaction: { ...interaction, actions: [] } })).not.toEqual([]);
    const answer = pointer('paths', '/v1/sessions/{id}', 'get', 'responses', '200', 'content', 'application/json', 'schema');
    expect(check(answer, { id: 'ses_1', revision: 1, interaction })).not.toEqual([]);
  });
});

describe('the headers', () => {
  const declared = (op: Operation, status: number) => Object.keys(op.responses[status]!.headers ?? {}).sort();
  const reads = (op: Operation) => (op.parameters ?? []).flatMap((p) => (p.$ref ? [contract.components.parameters[p.$ref.split('/').at(-1)!]!] : []));

  it('declares each shared header once, under components, and refers to it', () => {
    expect(Object.keys(contract.components.headers).sort()).toEqual(['ETag', 'Location', 'Preference-Applied', 'Retry-After', 'X-Request-Id']);
    expect(Object.values(contract.components.parameters).map((p) => p.name)).toEqual(expect.arrayContaining(['If-Match', 'If-None-Match', 'Idempotency-Key', 'Prefer']));
    for (const { op } of operations.filter(({ at }) => at[0] === 'paths')) {
      for (const [status, response] of Object.entries(op.responses)) {
        for (const header of Object.values(response.headers ?? {})) expect(header.$ref).toMatch(/^#\/components\/headers\//);
        // Every limit says when to try again, and every outage of the database; readiness and the
        // receipt keys answer 503 for what no retry mends (not ready; no key configured).
        const retried = status === '429' || (status === '503' && !['getReadiness', 'getReceiptKeys'].includes(op.operationId));
        expect(Object.keys(response.headers ?? {}).includes('Retry-After'), `${op.operationId} ${status}`).toBe(retried);
      }
    }
  });

  it('declares what the Session routes read: If-Match (required) and Idempotency-Key on a change, If-None-Match on a read', () => {
    for (const id of ['publishRevision', 'completeSession']) {
      expect(reads(byId(id)).map((p) => [p.name, p.required ?? false])).toEqual([
        ['If-Match', true],
        ['Idempotency-Key', false],
      ]);
    }
    for (const id of ['getSession', 'getTrialSession']) expect(reads(byId(id)).map((p) => p.name)).toEqual(['If-None-Match', 'Prefer']);
    expect(reads(byId('listEvents')).map((p) => p.name)).toEqual(['Prefer']);
    expect(reads(byId('receiveAcceptedResponse')).map((p) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'svc-webhook-key-ids']);
  });

  describe('against the running service', () => {
    const { t } = useTestApp();
    /** Headers of any answer that are no part of an operation's contract: HTTP's own and the security headers of every answer. */
    const FRAMING = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'cache-control', 'x-content-type-options', 'strict-transport-security']);
    /** Written only when the request asked to wait and was held. */
    const HELD_ONLY = new Set(['preference-applied']);
    const written = (headers: Record<string, unknown>) => Object.keys(headers).filter((name) => !FRAMING.has(name)).sort();
    const unheld = (names: string[]) => names.filter((name) => !HELD_ONLY.has(name));
    const check = contractChecker(contract);
    /** The names of the headers declared on an answer, once each value the answer wrote of them meets its declared schema. */
    const names = (op: Operation, status: number, answer?: Record<string, unknown>) => {
      for (const name of declared(op, status)) {
        const value = answer?.[name.toLowerCase()];
        if (value !== undefined) expect(check(pointer('components', 'headers', name, 'schema'), value), `${op.operationId} ${status} ${name}`).toEqual([]);
      }
      return declared(op, status).map((name) => name.toLowerCase());
    };

    it('declares every header the Session routes write, on the status that writes it', async () => {
      const created = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t), payload: { interaction: interactive() } });
      expect(written(created.headers)).toEqual(names(byId('createSession'), 201, created.headers));
      const { id } = created.json<{ id: string }>();
      const read = await t.app.inject({ url: `/v1/sessions/${id}`, headers: owner(t) });
      expect(written(read.headers)).toEqual(unheld(names(byId('getSession'), 200, read.headers)));
      const unchanged = await t.app.inject({ url: `/v1/sessions/${id}`, headers: owner(t, { 'if-none-match': read.headers.etag as string }) });
      expect(unchanged.statusCode).toBe(304);
      expect(written(unchanged.headers)).toEqual(unheld(names(byId('getSession'), 304, unchanged.headers)));
      // Held for its one second, nothing changes: 304 with the wait it applied.
      const waited = await t.app.inject({ url: `/v1/sessions/${id}`, headers: owner(t, { 'if-none-match': read.headers.etag as string, prefer: 'wait=1' }) });
      expect(waited.statusCode).toBe(304);
      expect(written(waited.headers)).toEqual(names(byId('getSession'), 304, waited.headers));
      const patched = await t.app.inject({ method: 'PATCH', url: `/v1/sessions/${id}`, headers: owner(t, { 'if-match': read.headers.etag as string }), payload: { interaction: interactive() } });
      expect(written(patched.headers)).toEqual(names(byId('publishRevision'), 200, patched.headers));
      const stale = await t.app.inject({ method: 'POST', url: `/v1/sessions/${id}/complete`, headers: owner(t, { 'if-match': read.headers.etag as string }) });
      expect(stale.statusCode).toBe(412);
      expect(written(stale.headers)).toEqual(names(byId('completeSession'), 412, stale.headers));
      const trial = await t.app.inject({ method: 'POST', url: '/v1/trial/sessions', payload: { interaction: interactive() } });
      expect(written(trial.headers)).toEqual(names(byId('createTrialSession'), 201, trial.headers));
    });

    it('refuses as the examples show: the code and message of a real refusal are an example of its status', async () => {
      const res = await t.app.inject({ url: '/v1/sessions/ses_00000000000000000000000000', headers: owner(t) });
      expect(res.statusCode).toBe(404);
      const examples = Object.values(byId('getSession').responses['404']!.content!['application/json']!.examples!).map((example) => example.value.error);
      const { code, message } = res.json<{ error: { code: string; message: string } }>().error;
      expect(examples).toContainEqual(expect.objectContaining({ code, message }));
    });

    it('answers with what the examples show: a real Session meets the schema its example meets', async () => {
      const session = await createSession(t);
      const read = await t.app.inject({ url: `/v1/sessions/${session.id}`, headers: owner(t) });
      expect(check(pointer('paths', '/v1/sessions/{id}', 'get', 'responses', '200', 'content', 'application/json', 'schema'), read.json())).toEqual([]);
      expect(Object.keys(read.json()).sort()).toEqual(Object.keys(byId('getSession').responses['200']!.content!['application/json']!.example as object).sort());
    });
  });
});
