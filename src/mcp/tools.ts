import { LIMITS, NOT_BLANK, PATTERNS, WAIT_SECONDS_MAX, type HandoffClient, type InteractiveSession } from '../client/index.js';
import { answerOf, type Answer } from './answer.js';
import { sessionEventsSchema } from './contract.js';
import { questionInteraction, questionProblems, type Question } from './question.js';
import { argumentCheck, type ArgumentCheck } from './validate.js';
import { PROGRESS_EVERY_MS, waitForAnswer, type Progress } from './wait.js';

/** The tools an agent calls: ask a person, read the answer, list a Session's events. */

export interface ToolContext {
  client: HandoffClient;
  now(): Date;
}

/** One call: its cancellation, and a way to tell the caller how it is going. */
export interface ToolCall {
  signal: AbortSignal;
  /** A progress notification, when the caller asked for them; otherwise nothing. */
  progress(update: Progress): Promise<void>;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; [keyword: string]: unknown };
  outputSchema: { type: 'object'; [keyword: string]: unknown };
  annotations: { readOnlyHint: boolean; openWorldHint: boolean };
}

export interface Tool {
  definition: ToolDefinition;
  /** Every problem of the arguments, in words; none when the call may run. */
  check: ArgumentCheck;
  run(input: unknown, ctx: ToolContext, call: ToolCall): Promise<object>;
}

/** A tool whose arguments are checked against its input schema, then by `problems` for what a schema cannot say. */
function tool<I>(definition: ToolDefinition, run: (input: I, ctx: ToolContext, call: ToolCall) => Promise<object>, problems?: (input: I) => string[]): Tool {
  const schema = argumentCheck(definition.inputSchema);
  return {
    definition,
    check: (input) => {
      const found = schema(input);
      return found.length > 0 || !problems ? found : problems(input as I);
    },
    run: (input, ctx, call) => run(input as I, ctx, call),
  };
}

const sessionId = { type: 'string', pattern: PATTERNS.sessionId, description: 'The Session ID ask_human returned (ses_...).' } as const;

const answerProperties = {
  status: {
    type: 'string',
    enum: ['pending', 'answered', 'completed', 'expired'],
    description: 'pending: not answered yet; answered: the person answered; completed: the Session was closed; expired: the link can no longer be answered.',
  },
  action: { type: ['string', 'null'], description: 'The ID of the button the person pressed.' },
  data: { type: ['object', 'null'], description: 'The typed values the person gave, by field name.' },
  accepted_at: { type: ['string', 'null'], description: 'When the service accepted the answer (ISO 8601).' },
  receipt: {
    type: ['string', 'null'],
    description: 'The signed decision receipt of the answer (compact JWS), already verified: signed by the service for this workspace, bound to this answer.',
  },
} as const;

const answerSchema = { type: 'object', required: Object.keys(answerProperties), additionalProperties: false, properties: answerProperties } as const;

/** What a tool that waited adds to a pending answer. */
const waitedProperties = {
  next_step: { type: 'string', description: 'Present when the answer is still pending after the wait: how to read it later.' },
} as const;

/**
 * The answer, its receipt verified first (the service's key, issued for this credential's
 * workspace, bound to this very answer): a receipt that does not verify is a RECEIPT_INVALID
 * tool error, never passed on.
 */
async function getAnswer(ctx: ToolContext, id: string, signal: AbortSignal): Promise<Answer> {
  const session = await ctx.client.getSession(id, { signal });
  const answer = answerOf(session, ctx.now());
  const latest = (session as InteractiveSession).responses.at(-1);
  if (answer.receipt !== null && latest) await ctx.client.verifyReceipt(id, latest, { signal });
  return answer;
}

/** The answer after waiting up to `seconds` for it; still pending, it says how to read it later. */
async function answerAfterWait(ctx: ToolContext, call: ToolCall, sessionId: string, seconds: number, subject: string): Promise<Answer & { next_step?: string }> {
  await waitForAnswer(ctx.client, call, sessionId, seconds, subject);
  const answer = await getAnswer(ctx, sessionId, call.signal);
  if (answer.status !== 'pending') return answer;
  return { ...answer, next_step: `Not answered within ${seconds} s: call get_answer with session_id ${sessionId} to read the answer (people may take minutes or hours).` };
}

const askHuman = tool<Question & { wait_seconds?: number }>(
  {
    name: 'ask_human',
    title: 'Ask a person',
    description:
      'Asks a person a question through a private web link and returns {session_id, url}: send the url to the person who should answer ' +
      '(anyone holding it can answer, once). Each field becomes an input on the page; each action a button (button IDs are the labels ' +
      'in lower case with underscores: "Approve refund" -> approve_refund; default one button, submit). With wait_seconds it also waits ' +
      `up to that long (at most ${WAIT_SECONDS_MAX} s) and returns what get_answer would (the url is sent at once as a progress message, ` +
      `then progress every ${PROGRESS_EVERY_MS / 1000} s, if the call asked for progress); while still pending, or without wait_seconds, call get_answer later.`,
    inputSchema: {
      type: 'object',
      required: ['title', 'fields'],
      additionalProperties: false,
      properties: {
        title: { type: 'string', minLength: 1, maxLength: LIMITS.title, pattern: NOT_BLANK, description: 'The question, shown as the page title.' },
        description: { type: 'string', maxLength: LIMITS.description, description: 'Context the person needs to answer, shown as plain text.' },
        fields: {
          type: 'array',
          maxItems: LIMITS.components,
          description: 'The values to ask for, in page order (may be empty: then only the buttons are the answer).',
          items: {
            type: 'object',
            required: ['name', 'label', 'type'],
            additionalProperties: false,
            properties: {
              name: { type: 'string', pattern: PATTERNS.fieldName, description: 'Key of the value in the answer: lower-case letter, then lower-case letters, digits, underscores.' },
              label: { type: 'string', minLength: 1, maxLength: LIMITS.label, pattern: NOT_BLANK, description: 'What the person sees.' },
              type: { type: 'string', enum: ['string', 'number', 'boolean', 'choice'], description: 'string: text; number; boolean: a checkbox; choice: one of options.' },
              options: { type: 'array', minItems: 1, maxItems: LIMITS.optionLabels, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: LIMITS.label }, description: 'The choices of a choice field.' },
              required: { type: 'boolean', description: 'The person must give this value.' },
            },
          },
        },
        actions: {
          type: 'array',
          minItems: 1,
          maxItems: LIMITS.actions,
          uniqueItems: true,
          items: { type: 'string', minLength: 1, maxLength: LIMITS.label, pattern: NOT_BLANK },
          description: 'Button labels, for example ["Approve", "Reject"]. Default: one Submit button.',
        },
        wait_seconds: { type: 'integer', minimum: 0, maximum: WAIT_SECONDS_MAX, description: `Wait up to this many seconds (at most ${WAIT_SECONDS_MAX}) for the answer.` },
      },
    },
    outputSchema: {
      type: 'object',
      required: ['session_id', 'url'],
      additionalProperties: false,
      properties: {
        session_id: { type: 'string' },
        url: { type: 'string', description: 'The private link to send to the person.' },
        ...answerProperties,
        ...waitedProperties,
      },
    },
    annotations: { readOnlyHint: false, openWorldHint: true },
  },
  async (input, ctx, call) => {
    const created = await ctx.client.createSession(questionInteraction(input), { signal: call.signal });
    const asked = { session_id: created.id, url: created.human_url };
    if (input.wait_seconds === undefined) return asked;
    // The person needs the link before there can be an answer to wait for: the first progress message carries it.
    return { ...asked, ...(await answerAfterWait(ctx, call, created.id, input.wait_seconds, `the answer at ${created.human_url}`)) };
  },
  questionProblems,
);

const getAnswerTool = tool<{ session_id: string; wait_seconds?: number }>(
  {
    name: 'get_answer',
    title: 'Read the answer',
    description:
      "Reads the person's answer to an ask_human question: {status, action, data, accepted_at, receipt}. With wait_seconds it first waits " +
      `up to that long (at most ${WAIT_SECONDS_MAX} s) for the answer, and returns as soon as it comes. While status is pending, call it ` +
      'again (next_step says so); the answer comes with a signed receipt of what the service accepted.',
    inputSchema: {
      type: 'object',
      required: ['session_id'],
      additionalProperties: false,
      properties: {
        session_id: sessionId,
        wait_seconds: { type: 'integer', minimum: 0, maximum: WAIT_SECONDS_MAX, description: `Wait up to this many seconds (at most ${WAIT_SECONDS_MAX}) for the answer.` },
      },
    },
    outputSchema: { ...answerSchema, properties: { ...answerProperties, ...waitedProperties } },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  (input, ctx, call) =>
    input.wait_seconds === undefined
      ? getAnswer(ctx, input.session_id, call.signal)
      : answerAfterWait(ctx, call, input.session_id, input.wait_seconds, `the answer to ${input.session_id}`),
);

const listEvents = tool<{ session_id: string; after?: number }>(
  {
    name: 'list_events',
    title: 'List the events of a Session',
    description:
      'Lists what happened to a Session in order: each accepted answer (with its data and receipt), each revision published, its completion. ' +
      'With after, only the events whose sequence is greater.',
    inputSchema: {
      type: 'object',
      required: ['session_id'],
      additionalProperties: false,
      properties: { session_id: sessionId, after: { type: 'integer', minimum: 0, description: 'Only events with a greater sequence number.' } },
    },
    outputSchema: { type: 'object', required: ['session_id', 'events'], additionalProperties: false, properties: { session_id: { type: 'string' }, events: sessionEventsSchema } },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async (input, ctx, { signal }) => {
    const { events } = await ctx.client.events(input.session_id, { signal });
    return { session_id: input.session_id, events: events.filter((event) => event.sequence > (input.after ?? 0)) };
  },
);

export const TOOLS: readonly Tool[] = [askHuman, getAnswerTool, listEvents];
