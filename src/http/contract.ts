import { preferenceAppliedHeader, waitHeaders } from '../waits/index.js';
import { SHOWN_AS } from './ajv.js';
import type { ErrorCode } from './errors.js';
import { meaningOf, type RefusalAnswer } from './refusal.js';

/**
 * What the contract document says beyond the route schemas: each operation's name, summary,
 * example request and answer, what each of its statuses means and which headers it reads and
 * writes. A route declares it next to its schemas with `operation()`; @fastify/swagger copies it
 * into the operation as an `x-` extension, and `completeContract` turns it into OpenAPI once the
 * document is built. Validation and serialization never see any of it.
 *
 * A route's refusals are declared once, as the answers of the refusal tables it can give
 * (`refuses`): its error responses and what each status means are made from them, and in tests
 * the edge checks every refusal a route answers against them (http/app.ts).
 *
 * Each header is declared once, in HEADERS, and referred to: a header a route schema names itself
 * (one it validates, or one an answer writes) is replaced by a reference to its declaration, and
 * one without a declaration fails the document's build.
 */

const CONTRACT = 'x-contract';

/** The headers the API reads and writes, each declared once (components/headers and components/parameters). */
export const HEADERS = {
  ETag: {
    schema: { type: 'string', pattern: '^"[0-9]+\\.[0-9]+"$' },
    description: "The Session's current version (a strong ETag): send it as If-Match to change the Session, as If-None-Match to poll it.",
  },
  Location: { schema: { type: 'string', pattern: '^/' }, description: 'The path of the Session just created.' },
  'Retry-After': { schema: { type: 'integer', minimum: 1 }, description: 'Seconds to wait before trying again.' },
  'X-Request-Id': { schema: { type: 'string', minLength: 1 }, description: "This request's id, as `error.request_id` names it in a refusal." },
  'If-Match': {
    required: true,
    schema: { type: 'string', minLength: 1 },
    description:
      "The Session's current ETag. Without it (or with `*`) the change is refused with 428 PRECONDITION_REQUIRED; " +
      'with a stale one with 412 SESSION_REVISION_CONFLICT.',
  },
  'If-None-Match': {
    schema: { type: 'string', minLength: 1 },
    description: 'ETags the caller holds, comma-separated: while the Session still has one of them it answers 304 without a body.',
  },
  Prefer: { schema: { type: 'string' }, description: waitHeaders.properties.prefer.description },
  'Preference-Applied': { schema: { type: 'string', pattern: '^wait=[0-9]+$' }, description: preferenceAppliedHeader['preference-applied'].description },
  'Idempotency-Key': {
    schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
    description:
      '1 to 255 visible ASCII characters, scoped to the credential, the operation and the Session. A retry with the same key ' +
      'and the same request (body and If-Match) answers what the first one did (the Session as it stood right after it) ' +
      'without changing anything again; the same key with a different request is 409 IDEMPOTENCY_CONFLICT.',
  },
} as const;

export type HeaderName = keyof typeof HEADERS;

/** One answer of an operation: what it means, an example body (when it has one) and the headers it writes. */
export interface Answer {
  description: string;
  example?: unknown;
  headers?: readonly HeaderName[];
}

export interface OperationDoc {
  operationId: string;
  /** One line: what the operation does. */
  summary: string;
  description?: string;
  /** The example body of the request, on an operation that takes one. */
  request?: unknown;
  /**
   * Each success status (and 304) with its meaning and the headers it writes; one of them carries
   * the example answer. A refusal listed here writes only the headers listed (a 503 without Retry-After).
   */
  answers: Record<number, Answer>;
  /**
   * Every refusal the route can answer, from the refusal tables (`meaning()` words one for this
   * route): each status's response and its description come from them, and nothing else.
   */
  refuses?: readonly RefusalAnswer<never>[];
  /** Request headers the operation reads. */
  reads?: readonly HeaderName[];
}

/** The route schema entries of an operation's documentation; spread into the route's schema. */
export function operation(doc: OperationDoc) {
  const { operationId, summary, description, ...contract } = doc;
  return { operationId, summary, ...(description === undefined ? {} : { description }), [CONTRACT]: contract };
}

/** Headers a refusal writes whatever the route: a limit's and an outage's Retry-After. */
const REFUSAL_HEADERS: Record<number, readonly HeaderName[]> = { 429: ['Retry-After'], 503: ['Retry-After'] };

/** Written on every answer, whatever answers it. */
const EVERY_ANSWER: readonly HeaderName[] = ['X-Request-Id'];

/** A request header's component: its name without dashes (IfMatch), as parameters are named. */
const parameterName = (name: HeaderName): string => name.replaceAll('-', '');

const FALLBACK_DESCRIPTION = 'Default Response';
/** The media an example belongs to: the JSON one, else the only one (an event stream, say). */
const mediaOf = (content: Record<string, Json> | undefined): Json | undefined => content?.['application/json'] ?? Object.values(content ?? {})[0];

type Json = Record<string, unknown>;
interface DocumentResponse extends Json {
  description: string;
  headers?: Json;
  content?: Record<string, Json>;
}
interface DocumentOperation extends Json {
  operationId?: string;
  summary?: string;
  parameters?: Json[];
  requestBody?: { content: Record<string, Json> };
  responses: Record<string, DocumentResponse>;
  [CONTRACT]?: Omit<OperationDoc, 'operationId' | 'summary' | 'description'>;
}
export interface ContractDocument extends Json {
  paths: Record<string, Record<string, DocumentOperation>>;
  components: Json & { schemas?: Json; headers?: Json; parameters?: Json };
}

/** A capability's group of operations in the document: every operation of its routes and webhooks is in it. */
export interface ContractTag {
  /** Title case, as tools list it: `Sessions`. */
  name: string;
  /** What the capability lets an integrator do, in a sentence. */
  description: string;
}

/**
 * What a capability adds to the document beside its routes: the tag its operations are listed
 * under (the document is refused without one for each operation), its own schemas, parameters
 * and webhooks.
 */
export interface ContractPart {
  tag?: ContractTag;
  schemas?: Json;
  parameters?: Json;
  webhooks?: Json;
}

/** Fails the document's build: a route that says too little about itself is a defect, not a gap. */
function incomplete(where: string, what: string): never {
  throw new Error(`The contract of ${where} is incomplete: ${what}.`);
}

/** The shared headers the document's answers write and its requests read. */
interface Used {
  written: Set<HeaderName>;
  read: Set<HeaderName>;
}

const SHARED = new Map((Object.keys(HEADERS) as HeaderName[]).map((name) => [name.toLowerCase(), name]));

/** The shared declaration of a header a route schema names itself: one declaration per header. */
function shared(where: string, header: string): HeaderName {
  return SHARED.get(header.toLowerCase()) ?? incomplete(where, `the header ${header} has no shared declaration (HEADERS)`);
}

/**
 * The refusals a route declares it can answer (none, when its contract names none), or undefined
 * for a route outside the contract (a page, the document itself).
 */
export function declaredRefusals(schema: unknown): readonly RefusalAnswer<never>[] | undefined {
  const contract = (schema as { [CONTRACT]?: OperationDoc } | undefined)?.[CONTRACT];
  return contract && (contract.refuses ?? []);
}

/** What a status means on a route: each code it answers with, and what each of its refusals means. */
function statusMeaning(answers: readonly RefusalAnswer<never>[]): string {
  const byCode = new Map<ErrorCode, Set<string>>();
  for (const answer of answers) {
    const meanings = byCode.get(answer.code) ?? new Set<string>();
    byCode.set(answer.code, meanings.add(meaningOf(answer)));
  }
  return [...byCode].map(([code, meanings]) => `${code}: ${[...meanings].join(' ')}`).join(' ');
}

/** The request id of the examples, as http/requestIds.ts makes them. */
const EXAMPLE_REQUEST_ID = 'req_01JQ8Z5XK3B7W2C9D4E6F8G0HJ00002s';

/**
 * An example body of each refusal a status answers, in the envelope: its code, its message (or,
 * where the message is made from the refusal's details, what it means) and its fixed reason.
 * Keyed by code; a code with several messages numbers them.
 */
function refusalExamples(answers: readonly RefusalAnswer<never>[]): Json {
  const examples = new Map<string, { summary: string; value: Json }>();
  const perCode = new Map<ErrorCode, number>();
  for (const answer of answers) {
    const message = typeof answer.message === 'string' ? answer.message : meaningOf(answer);
    const reason = typeof answer.reason === 'string' ? { reason: answer.reason } : {};
    const value = { error: { code: answer.code, message, request_id: EXAMPLE_REQUEST_ID, ...reason } };
    if ([...examples.values()].some((example) => JSON.stringify(example.value) === JSON.stringify(value))) continue;
    const count = (perCode.get(answer.code) ?? 0) + 1;
    perCode.set(answer.code, count);
    examples.set(count === 1 ? answer.code : `${answer.code}_${count}`, { summary: meaningOf(answer), value });
  }
  return Object.fromEntries(examples);
}

/** The error responses of the refusals a route declares, each status once, the envelope as body with an example of each refusal. */
function refusalResponses(refuses: readonly RefusalAnswer<never>[]): Record<string, DocumentResponse> {
  const statuses = [...new Set(refuses.map((answer) => answer.status))];
  return Object.fromEntries(
    statuses.map((status) => {
      const answers = refuses.filter((answer) => answer.status === status);
      return [
        String(status),
        {
          description: statusMeaning(answers),
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' }, examples: refusalExamples(answers) } },
        },
      ];
    }),
  );
}

/**
 * A route schema in its capability's tag, when it is part of the contract (app.ts tags each
 * capability's routes with it). A route names no tag of its own: its capability's is the one.
 */
export function taggedSchema<S>(where: string, schema: S, tag: ContractTag | undefined): S {
  if (!declaredRefusals(schema)) return schema;
  if ((schema as { tags?: unknown }).tags) incomplete(where, "its own tags: a route's tag is its capability's (contract.tag in its record)");
  return tag ? { ...schema, tags: [tag.name] } : schema;
}

function completeOperation(where: string, op: DocumentOperation, used: Used): void {
  const contract = op[CONTRACT];
  delete op[CONTRACT];
  if (!contract || !op.operationId || !op.summary) incomplete(where, 'an operationId, a summary and their contract (operation())');
  if (!Array.isArray(op.tags) || op.tags.length === 0) incomplete(where, "a tag: its capability's record declares none (contract.tag)");
  const { request, answers, refuses = [], reads = [] } = contract;
  for (const status of Object.keys(op.responses)) {
    if (Number(status) >= 400 && !answers[Number(status)]) incomplete(where, `status ${status} is declared in its schema, not by the refusals it answers (refuses)`);
  }
  // An answer the route describes itself (a refusal whose body is not the envelope) keeps its words.
  const derived = Object.entries(refusalResponses(refuses)).filter(([status]) => !answers[Number(status)]);
  Object.assign(op.responses, Object.fromEntries(derived));

  const body = mediaOf(op.requestBody?.content);
  if (body && request === undefined) incomplete(where, 'its request has no example');
  if (!body && request !== undefined) incomplete(where, 'an example request, but it takes no body');
  if (body) body.example = request;

  const headerRef = (name: HeaderName) => {
    used.written.add(name);
    return { $ref: `#/components/headers/${name}` };
  };
  for (const [status, response] of Object.entries(op.responses)) {
    const answer = answers[Number(status)];
    const routeOwn = response.description === FALLBACK_DESCRIPTION ? undefined : response.description;
    const description = answer?.description ?? routeOwn;
    if (description === undefined) incomplete(where, `status ${status} says nothing of what it means`);
    response.description = description;
    const declared = Object.keys(response.headers ?? {}).map((name) => shared(where, name));
    const own = answer ? (answer.headers ?? []) : (REFUSAL_HEADERS[Number(status)] ?? []);
    const written = new Set([...own, ...declared, ...EVERY_ANSWER]);
    response.headers = Object.fromEntries([...written].map((name) => [name, headerRef(name)]));
    const media = mediaOf(response.content);
    if (answer?.example !== undefined) {
      if (!media) incomplete(where, `status ${status} has an example but no body`);
      media.example = answer.example;
    } else if (Number(status) >= 400 && media && media.example === undefined && media.examples === undefined) {
      // A refusal the route describes itself shows the refusals it declares with that status.
      const examples = refusalExamples(refuses.filter((refusal) => refusal.status === Number(status)));
      if (Object.keys(examples).length === 0) incomplete(where, `status ${status} has no example: give one, or declare the refusals it answers (refuses)`);
      media.examples = examples;
    }
  }
  for (const status of Object.keys(answers)) if (!op.responses[status]) incomplete(where, `status ${status} is described but not declared`);
  const examples = Object.values(op.responses).filter((response) => mediaOf(response.content)?.example !== undefined);
  const bodies = Object.entries(op.responses).filter(([status, response]) => Number(status) < 300 && response.content);
  if (bodies.length > 0 && examples.length === 0) incomplete(where, 'its answer has no example');

  // A header the route schema declares itself (Idempotency-Key, for its pattern) is the shared one.
  const inline = (op.parameters ?? []).filter((parameter) => parameter.in === 'header');
  const read = new Set([...reads, ...inline.map((parameter) => shared(where, String(parameter.name)))]);
  const parameters = [...(op.parameters ?? []).filter((parameter) => parameter.in !== 'header')];
  for (const name of read) {
    used.read.add(name);
    parameters.push({ $ref: `#/components/parameters/${parameterName(name)}` });
  }
  if (parameters.length > 0) op.parameters = parameters;
}

/** The document's value with each schema that says how it is shown (shownAs) replaced by that form. */
function shown(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shown);
  if (typeof value !== 'object' || value === null) return value;
  const node = value as Json;
  if (SHOWN_AS in node) return shown(node[SHOWN_AS]);
  return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, shown(item)]));
}

/** A part's webhooks, each operation in the part's tag. */
function webhooksIn(part: ContractPart): Json {
  const tag = part.tag ?? incomplete('the webhooks', `a tag: the capability that sends ${Object.keys(part.webhooks ?? {}).join(', ')} declares none (contract.tag)`);
  return Object.fromEntries(
    Object.entries(part.webhooks ?? {}).map(([name, methods]) => [
      name,
      Object.fromEntries(Object.entries(methods as Record<string, Json>).map(([method, op]) => [method, { ...op, tags: [tag.name] }])),
    ]),
  );
}

/**
 * The document @fastify/swagger built, completed: each operation's contract applied, the shared
 * headers and parameters it used declared once under components, each part's schemas,
 * parameters and webhooks added, and the tags its capabilities list their operations under.
 */
export function completeContract(built: ContractDocument, parts: readonly ContractPart[]): ContractDocument {
  const document = shown(built) as ContractDocument;
  const used: Used = { written: new Set(), read: new Set() };
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods)) completeOperation(`${method.toUpperCase()} ${path}`, op, used);
  }
  const names = Object.keys(HEADERS) as HeaderName[];
  const { components } = document;
  components.headers = Object.fromEntries(names.filter((name) => used.written.has(name)).map((name) => [name, { ...HEADERS[name] }]));
  components.parameters = Object.fromEntries(
    names
      .filter((name) => used.read.has(name))
      .map((name) => [parameterName(name), { name, in: 'header', ...HEADERS[name] }]),
  );
  for (const part of parts) {
    Object.assign((components.schemas ??= {}), part.schemas);
    Object.assign(components.parameters, part.parameters);
    if (part.webhooks) Object.assign(((document.webhooks as Json | undefined) ??= {}), webhooksIn(part));
  }
  document.tags = parts.flatMap((part) => part.tag ?? []);
  return document;
}
