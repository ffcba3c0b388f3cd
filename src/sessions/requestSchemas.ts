import { integerText, shownAs } from '../http/ajv.js';
import { HEADERS } from '../http/contract.js';
import { ACTION_INTENTS } from './interaction.js';
import { LIMITS, PATTERN_WORDS, PATTERNS } from './limits.js';

/**
 * What a request to the Sessions routes must be: fastify's Ajv checks every request against these
 * schemas (with the options of http/ajv.ts); the contract document shows them. What JSON Schema cannot say lives
 * in rules.ts. Formats `text` and `nonblank-text` are text the store can hold (no U+0000, no
 * unpaired surrogate), the second with a character that is not white space.
 *
 * An interaction is checked in steps, each a member of an allOf, so that the first step that
 * finds a fault decides the code: its mode; its own shape (title, description, the source with
 * its display data or its components' `type`, the actions, response_policy), 400 INVALID_SCHEMA;
 * the component types, 400 UNKNOWN_COMPONENT (an unknown type is named as such even beside a
 * malformed known component); each component's own shape, 400 INVALID_SCHEMA. Within a step the
 * first fault found is reported: required properties, then unknown ones, then each property in
 * the order declared here. The contract document shows each of these as the union it checks
 * (shownAs): the same values, in the shape a generator reads.
 */

const text = (min: number, max?: number, format: 'text' | 'nonblank-text' = 'text') =>
  ({ type: 'string', ...(min > 0 ? { minLength: min } : {}), ...(max === undefined ? {} : { maxLength: max }), format }) as const;

const count = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;
const bound = { type: 'number' } as const;
const storableNames = { propertyNames: { format: 'text' } } as const;

const scalar = { type: ['string', 'number', 'boolean', 'null'], format: 'text' } as const;

/** An object of 1 or more scalars, shown as a record. */
const scalarRecord = (max?: number) =>
  ({ type: 'object', minProperties: 1, ...(max === undefined ? {} : { maxProperties: max }), ...storableNames, additionalProperties: scalar }) as const;

const table = { type: 'array', minItems: 1, maxItems: LIMITS.tableRows, items: scalarRecord() } as const;

/** A table, a record or a scalar: the if/then picks the branch by the value's type, so a fault names it. */
const displayValue = shownAs(
  { if: { type: 'array' }, then: table, else: { if: { type: 'object' }, then: scalarRecord(), else: scalar } },
  { oneOf: [table, scalarRecord(), scalar] },
);

/** A source: its kind first (a wrong kind is named as such), then its one other property. */
const sourceOf = <K extends string, P extends string, S extends object>(kind: K, property: P, checked: S, shown: object) =>
  shownAs(
    {
      allOf: [
        { type: 'object', required: ['kind'], properties: { kind: { const: kind } } },
        { type: 'object', required: [property], additionalProperties: false, properties: { kind: {}, [property]: checked } as { kind: object } & { [key in P]: S } },
      ],
    } as const,
    { type: 'object', required: ['kind', property], additionalProperties: false, properties: { kind: { const: kind }, [property]: shown } },
  );

const displayData = {
  type: 'object',
  description: 'Scalars, records (objects of scalars) and tables (1 to 100 records with one key set).',
  minProperties: 1,
  ...storableNames,
  additionalProperties: displayValue,
} as const;

const displaySource = sourceOf('data', 'data', displayData, displayData);

/** The components of an interactive source: their types and each one's shape are the later steps (componentSteps). */
const componentList = { type: 'array', minItems: 1, maxItems: LIMITS.components } as const;

const surfaceSource = sourceOf(
  'svc_surface',
  'components',
  { ...componentList, items: { type: 'object', required: ['type'], properties: { type: { type: 'string', minLength: 1, maxLength: LIMITS.componentType } } } },
  { ...componentList, items: { $ref: 'Component#' } },
);

const action = {
  type: 'object',
  required: ['id', 'label'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: PATTERNS.actionId, description: PATTERN_WORDS.actionId },
    label: text(1, LIMITS.label, 'nonblank-text'),
    intent: { enum: [...ACTION_INTENTS] },
  },
} as const;

const header = { title: text(1, LIMITS.title, 'nonblank-text'), description: text(0, LIMITS.description) } as const;

const displayInteractionSchema = {
  $id: 'DisplayInteraction',
  type: 'object',
  required: ['mode', 'title', 'source'],
  additionalProperties: false,
  properties: { mode: { const: 'display' }, ...header, source: displaySource },
} as const;

const interactiveInteractionSchema = {
  $id: 'InteractiveInteraction',
  type: 'object',
  required: ['mode', 'title', 'source', 'actions'],
  additionalProperties: false,
  properties: {
    mode: { const: 'interactive' },
    ...header,
    source: surfaceSource,
    actions: { type: 'array', minItems: 1, maxItems: LIMITS.actions, items: action, description: 'Action IDs are unique.' },
    response_policy: { const: 'first', description: 'The default and only policy: one accepted response per revision.' },
  },
} as const;

const fieldSchemaOf = (type: string, keywords: object, required: string[] = []) =>
  ({
    type: 'object',
    required: ['type', ...required],
    additionalProperties: false,
    properties: { type: { const: type }, title: text(0), description: text(0), ...keywords },
  }) as const;

const stringEnum = { type: 'array', minItems: 1, items: text(0), description: 'Distinct values.' } as const;
const range = { minimum: bound, maximum: bound, exclusiveMinimum: bound, exclusiveMaximum: bound } as const;

const fieldSchemas = [
  fieldSchemaOf('string', { minLength: count, maxLength: count, enum: stringEnum }),
  fieldSchemaOf('number', range),
  fieldSchemaOf('integer', range),
  fieldSchemaOf('boolean', {}),
  fieldSchemaOf(
    'array',
    {
      items: fieldSchemaOf('string', { enum: stringEnum }, ['enum']),
      minItems: count,
      maxItems: count,
      uniqueItems: { const: true, description: 'Array fields never repeat an option.' },
    },
    ['items'],
  ),
] as const;

/**
 * The JSON Schema subset a field may use; rules.ts refuses bounds no value can satisfy. The
 * validator's discriminator names the failing branch; the document shows the plain union, whose
 * `type` tags type it the same (a discriminator on inline branches makes generators tag the whole).
 */
const fieldSchemaSchema = shownAs(
  {
    $id: 'FieldSchema',
    allOf: [
      { type: 'object', required: ['type'], properties: { type: { enum: fieldSchemas.map((schema) => schema.properties.type.const) } } },
      { type: 'object', discriminator: { propertyName: 'type' }, oneOf: fieldSchemas },
    ],
  } as const,
  { oneOf: fieldSchemas },
);

const component = (type: string, required: string[], properties: object) =>
  ({ type: 'object', required: ['type', ...required], additionalProperties: false, properties: { type: { const: type }, ...properties } }) as const;

const componentKinds = [
  component('heading', ['text'], { text: text(1, LIMITS.label, 'nonblank-text') }),
    component('text', ['text'], { text: text(1, LIMITS.text) }),
    component('record', ['fields'], { fields: scalarRecord(LIMITS.recordFields), label: text(1, LIMITS.label, 'nonblank-text') }),
    component('field', ['name', 'label', 'schema'], {
      name: { type: 'string', pattern: PATTERNS.fieldName, description: PATTERN_WORDS.fieldName },
      label: text(1, LIMITS.label),
      schema: { $ref: 'FieldSchema#' },
      description: text(0, LIMITS.fieldDescription),
      required: { type: 'boolean' },
      multiline: { type: 'boolean', description: 'Only on a string field without enum.' },
      option_labels: {
        type: 'object',
        description: "Labels of the schema's enum values.",
        maxProperties: LIMITS.optionLabels,
        ...storableNames,
        additionalProperties: text(1, LIMITS.label),
      },
      value: {
        type: ['string', 'number', 'boolean', 'array'],
        format: 'text',
        items: text(0),
        description: 'A proposed answer, valid against the field schema.',
      },
    }),
] as const;

/** One component of an interactive source, told by its `type` (the validator's discriminator names the failing one). */
const componentSchema = shownAs({ $id: 'Component', type: 'object', discriminator: { propertyName: 'type' }, oneOf: componentKinds } as const, { oneOf: componentKinds });

/** The steps after an interaction's own shape: its component types, then each component. */
const componentSteps = [
  {
    type: 'object',
    properties: {
      source: {
        type: 'object',
        properties: {
          components: {
            type: 'array',
            items: { type: 'object', properties: { type: { enum: componentKinds.map((kind) => kind.properties.type.const) } } },
          },
        },
      },
    },
  },
  {
    type: 'object',
    properties: { source: { type: 'object', properties: { components: { type: 'array', items: { $ref: 'Component#' } } } } },
  },
] as const;

const description = 'display (source.kind data) or interactive (source.kind svc_surface, with actions).';

/** POST /v1/sessions: display or interactive, told by `mode`. */
const interactionSchema = shownAs(
  {
    $id: 'Interaction',
    description,
    allOf: [
      { type: 'object', required: ['mode'], properties: { mode: { enum: ['display', 'interactive'] } } },
      { if: { type: 'object', properties: { mode: { const: 'display' } } }, then: { $ref: 'DisplayInteraction#' }, else: { $ref: 'InteractiveInteraction#' } },
      ...componentSteps,
    ],
  } as const,
  { description, oneOf: [{ $ref: 'DisplayInteraction#' }, { $ref: 'InteractiveInteraction#' }] },
);

/** PATCH /v1/sessions/{id} (and trial creation): interactive only. */
const publishedInteractionSchema = shownAs(
  {
    $id: 'PublishedInteraction',
    allOf: [{ type: 'object', required: ['mode'], properties: { mode: { const: 'interactive' } } }, { $ref: 'InteractiveInteraction#' }, ...componentSteps],
  } as const,
  { $ref: 'InteractiveInteraction#' },
);

/** An address a responder's mail goes to, as a sign-in address: 3 to 254 characters, one `@` with something on each side. */
const emailAddresses = {
  type: 'array',
  minItems: 1,
  maxItems: 20,
  items: { type: 'string', minLength: 3, maxLength: 254, pattern: '^[^\\s@<>()",;:\\\\\\[\\]]+@[^\\s@<>()",;:\\\\\\[\\]]+$' },
} as const;
const delaySeconds = { type: 'integer', minimum: 60, maximum: 30 * 24 * 3600 } as const;

const notifyPlanSchema = {
  $id: 'NotifyPlan',
  type: 'object',
  description:
    "Whom to reach for this revision (interactive Sessions of owner and developer workspaces): each address gets mail with a link of its own; `slack` posts to the workspace's Slack webhook; one reminder per responder who has not answered after `remind_after_seconds`; each `escalate` step mails further addresses after its delay (docs/responders.md).",
  additionalProperties: false,
  minProperties: 1,
  properties: {
    email: emailAddresses,
    slack: { type: 'boolean' },
    remind_after_seconds: delaySeconds,
    escalate: {
      type: 'array',
      minItems: 1,
      maxItems: 3,
      items: { type: 'object', required: ['after_seconds', 'email'], additionalProperties: false, properties: { after_seconds: delaySeconds, email: emailAddresses } },
    },
  },
} as const;

const actionIds = {
  type: 'array',
  minItems: 1,
  maxItems: LIMITS.actions,
  uniqueItems: true,
  items: { type: 'string', pattern: PATTERNS.actionId, description: PATTERN_WORDS.actionId },
} as const;

const decisionSchema = {
  $id: 'Decision',
  type: 'object',
  description:
    "Several people decide this revision (interactive Sessions with notify.email): each emailed responder answers once, through their own link; it is approved when `required` of them chose an action of `count`, vetoed as soon as anyone chose an action of `veto`, whichever commits first (docs/decisions.md). `count` and `veto` name the revision's actions and share none; `required` is at most the number of people notify.email reaches.",
  required: ['required', 'count', 'veto'],
  additionalProperties: false,
  properties: {
    required: { type: 'integer', minimum: 1, maximum: 20 },
    count: { ...actionIds, description: 'The actions that count toward `required`.' },
    veto: { ...actionIds, description: 'The actions that decide alone, as a veto.' },
  },
} as const;

const requestOf = (ref: string) =>
  ({
    type: 'object',
    required: ['interaction'],
    additionalProperties: false,
    properties: { interaction: { $ref: `${ref}#` }, notify: { $ref: 'NotifyPlan#' }, decision: { $ref: 'Decision#' } },
  }) as const;

/** The caller's own reference for a Session: on create, as a filter of the list, and on every Session answer. */
export const CLIENT_REFERENCE_ID = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  pattern: PATTERNS.clientReferenceId,
  description:
    "Your own reference for the Session (an order id, a job id): 1 to 200 visible ASCII characters. Unique in the workspace while the Session lives (a purged Session frees it): a create with a reference a live Session holds is 409 CLIENT_REFERENCE_IN_USE naming that Session. Find a Session again by it with GET /v1/sessions?client_reference_id=.",
} as const;

const createRequest = requestOf('Interaction');
export const createRequestSchema = { ...createRequest, properties: { ...createRequest.properties, client_reference_id: CLIENT_REFERENCE_ID } } as const;
export const publishRequestSchema = requestOf('PublishedInteraction');

/**
 * RFC 3339 with a time zone, as a pattern: the request schemas know no date format. The route
 * parses it and refuses a date that does not exist.
 */
const RFC_3339 = '^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?([Zz]|[+-][0-9]{2}:[0-9]{2})$';

/** POST /v1/sessions/{id}/extend. */
export const extendRequestSchema = {
  type: 'object',
  required: ['link_expires_at'],
  additionalProperties: false,
  properties: {
    link_expires_at: {
      type: 'string',
      pattern: RFC_3339,
      description: "The link's new deadline (RFC 3339): later than the current one, at most twice the lifetime the link was created with after the Session's creation.",
    },
  },
} as const;

/** Every shared request schema, in the order they refer to each other. */
export const REQUEST_SCHEMAS = [notifyPlanSchema, decisionSchema, fieldSchemaSchema, componentSchema, displayInteractionSchema, interactiveInteractionSchema, interactionSchema, publishedInteractionSchema];

/** A Session's id, as a path holds it and every answer names it. */
export const SESSION_ID = { type: 'string', pattern: PATTERNS.sessionId } as const;

/** The path of a Session route; GET /v1/sessions/{id} refuses a malformed id (400), the others answer 404. */
const anySessionId = { type: 'string', description: 'The Session ID (ses_…).' } as const;

export const sessionIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: anySessionId },
} as const;

export const wellFormedSessionIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { ...SESSION_ID, description: PATTERN_WORDS.sessionId } },
} as const;

export const revisionParams = {
  type: 'object',
  required: ['id', 'revision'],
  properties: { id: anySessionId, revision: integerText({ type: 'string', pattern: PATTERNS.revision, description: PATTERN_WORDS.revision }, { minimum: 1, maximum: 10 ** 9 - 1 }) },
} as const;

export const idempotencyHeaders = {
  type: 'object',
  properties: { 'idempotency-key': { ...HEADERS['Idempotency-Key'].schema, description: '1 to 255 visible ASCII characters' } },
} as const;
