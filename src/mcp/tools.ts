import type { CreateTaskResult } from '@modelcontextprotocol/sdk/types.js';
import { LIMITS, NOT_BLANK, PATTERNS, WAIT_SECONDS_MAX, type CreatedSession } from '../client/index.js';
import { notifyEmailSchema, sessionEventsSchema } from './contract.js';
import { decisionProblems, decisionRule, type DecisionArguments } from './decision.js';
import { ACTION_IDS_RULE, questionInteraction, questionProblems, type Question } from './question.js';
import { answerAfterWait, readAnswer, verifiedAnswer, type ToolContext } from './reading.js';
import { taskCreated } from './tasks.js';
import { argumentCheck, type ArgumentCheck } from './validate.js';
import { PROGRESS_EVERY_MS, type Progress } from './wait.js';

/** The tools an agent calls: ask a person, read the answer, list a Session's events, complete it. */

export type { ToolContext } from './reading.js';

/** The link ask_human made, for the person who should answer. */
export interface PersonLink {
  sessionId: string;
  url: string;
  title: string;
}

/** One call: its cancellation, and ways to tell the caller how it is going. */
export interface ToolCall {
  signal: AbortSignal;
  /** A progress notification, when the caller asked for them; otherwise nothing. */
  progress(update: Progress): Promise<void>;
  /** Shows the link to the host's user (URL-mode elicitation) when the client supports it; otherwise nothing. Never waits for their reply. */
  showLink(link: PersonLink): void;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; [keyword: string]: unknown };
  outputSchema: { type: 'object'; [keyword: string]: unknown };
  annotations: { readOnlyHint: boolean; openWorldHint: boolean };
  /** MCP tasks: a tool that may run as one says so (the client then may send `task` with the call). */
  execution?: { taskSupport: 'optional' };
}

export interface Tool {
  definition: ToolDefinition;
  /** Every problem of the arguments, in words; none when the call may run. */
  check: ArgumentCheck;
  run(input: unknown, ctx: ToolContext, call: ToolCall): Promise<object>;
  /** The call as an MCP task, answered at once (tasks.ts): only a tool whose definition has `execution`. */
  startTask?(input: unknown, ctx: ToolContext, call: ToolCall): Promise<CreateTaskResult>;
}

type Run<I, R> = (input: I, ctx: ToolContext, call: ToolCall) => Promise<R>;

/** A tool whose arguments are checked against its input schema, then by `problems` for what a schema cannot say. */
function tool<I>(definition: ToolDefinition, run: Run<I, object>, problems?: (input: I) => string[], startTask?: Run<I, CreateTaskResult>): Tool {
  const schema = argumentCheck(definition.inputSchema);
  return {
    definition,
    check: (input) => {
      const found = schema(input);
      return found.length > 0 || !problems ? found : problems(input as I);
    },
    run: (input, ctx, call) => run(input as I, ctx, call),
    ...(startTask ? { startTask: (input: unknown, ctx: ToolContext, call: ToolCall) => startTask(input as I, ctx, call) } : {}),
  };
}

const sessionId = { type: 'string', pattern: PATTERNS.sessionId, description: 'The Session ID ask_human returned (ses_...).' } as const;
const linkExpiresAt = { type: 'string', format: 'date-time', description: 'When the link stops taking answers (ISO 8601); after it, the status is expired.' } as const;

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
  link_expires_at: linkExpiresAt,
  decision: {
    type: 'object',
    description:
      'Present for a question several people decide (ask_human with required): how it stands. status is answered once it resolved; ' +
      'accepted_at is then resolved_at and receipt the signed resolution receipt, already verified with every answer receipt it binds.',
    required: ['required', 'outcome', 'approvals', 'vetoed_by', 'resolved_at'],
    additionalProperties: false,
    properties: {
      required: { type: 'integer', description: 'How many approvals resolve it.' },
      outcome: { type: ['string', 'null'], enum: ['approved', 'vetoed', null], description: 'null until resolved.' },
      approvals: { type: 'array', items: { type: 'string' }, description: 'The responders who approved (their IDs), in the order accepted.' },
      vetoed_by: { type: ['string', 'null'], description: 'The responder whose veto resolved it.' },
      resolved_at: { type: ['string', 'null'], description: 'When it resolved (ISO 8601).' },
    },
  },
} as const;

/** Every answer has each property but `decision`, which only a question several people decide has. */
const answerSchema = {
  type: 'object',
  required: Object.keys(answerProperties).filter((name) => name !== 'decision'),
  additionalProperties: false,
  properties: answerProperties,
} as const;

const buttonIdList = { type: 'array', minItems: 1, maxItems: LIMITS.actions, uniqueItems: true, items: { type: 'string', pattern: PATTERNS.actionId } } as const;

/** What a tool that waited adds to a pending answer. */
const waitedProperties = {
  next_step: { type: 'string', description: 'Present when the answer is still pending after the wait: how to read it later.' },
} as const;

type AskHuman = Question & DecisionArguments & { wait_seconds?: number };

/** Creates the Session the question asks for, emailing `notify_email` each a link of their own, and shows its link to the host's user when the client can. */
async function ask(input: AskHuman, ctx: ToolContext, call: ToolCall): Promise<CreatedSession> {
  const notify = input.notify_email ? { notify: { email: input.notify_email } } : {};
  const decision = decisionRule(input);
  const created = await ctx.client.createSession(questionInteraction(input), { signal: call.signal, ...notify, ...(decision ? { decision } : {}) });
  call.showLink({ sessionId: created.id, url: created.human_url, title: input.title });
  return created;
}

const askHuman = tool<AskHuman>(
  {
    name: 'ask_human',
    title: 'Ask a person',
    description:
      'Asks a person a question through a private web link and returns {session_id, url, link_expires_at}: send the url to the person who should answer ' +
      '(anyone holding it can answer, once, until link_expires_at), or name them in notify_email and the service emails each a link of their own. ' +
      `Each field becomes an input on the page; each action a button. ${ACTION_IDS_RULE} With wait_seconds it also waits ` +
      `up to that long (at most ${WAIT_SECONDS_MAX} s) and returns what get_answer would (the url is sent at once as a progress message, ` +
      `then progress every ${PROGRESS_EVERY_MS / 1000} s, if the call asked for progress); while still pending, or without wait_seconds, call get_answer later. ` +
      'Called as an MCP task, it answers at once with the task, which completes when the person answers. ' +
      'With required (and notify_email naming at least that many people), several people decide: each answers once through their own emailed link, ' +
      'and it resolves approved when required of them pressed a count button, or vetoed as soon as anyone pressed a veto button; the answer is then ' +
      'the outcome (decision: {outcome, approvals, vetoed_by, resolved_at}) with its resolution receipt, not one person\'s answer. ' +
      'Unless given, count is the first button and veto every other one.',
    inputSchema: {
      type: 'object',
      required: ['title'],
      additionalProperties: false,
      properties: {
        title: { type: 'string', minLength: 1, maxLength: LIMITS.title, pattern: NOT_BLANK, description: 'The question, shown as the page title.' },
        description: { type: 'string', maxLength: LIMITS.description, description: 'Context the person needs to answer, shown as plain text.' },
        fields: {
          type: 'array',
          maxItems: LIMITS.components,
          description: 'The values to ask for, in page order. Optional: without fields, the button pressed is the whole answer.',
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
          description: `Button labels, for example ["Approve", "Reject"]. Default: one Submit button (ID submit). ${ACTION_IDS_RULE}`,
        },
        notify_email: {
          ...notifyEmailSchema,
          description: 'Addresses the service emails, each with a link of its own (the answer through it names that responder in its receipt). Owner and developer keys only.',
        },
        wait_seconds: { type: 'integer', minimum: 0, maximum: WAIT_SECONDS_MAX, description: `Wait up to this many seconds (at most ${WAIT_SECONDS_MAX}) for the answer.` },
        required: {
          type: 'integer',
          minimum: 1,
          maximum: 20,
          description: 'Several people decide: this many of the notify_email addresses must approve (at most as many as notify_email names).',
        },
        count: { ...buttonIdList, description: 'With required: the button IDs that approve. Default: the first button.' },
        veto: { ...buttonIdList, description: 'With required: the button IDs that veto, alone. Default: every button not in count; never empty.' },
      },
    },
    outputSchema: {
      type: 'object',
      required: ['session_id', 'link_expires_at'],
      additionalProperties: false,
      properties: {
        session_id: { type: 'string' },
        url: { type: 'string', description: 'The private link to send to the person (absent from a task\'s result: the task carried it when it was created).' },
        ...answerProperties,
        ...waitedProperties,
      },
    },
    annotations: { readOnlyHint: false, openWorldHint: true },
    execution: { taskSupport: 'optional' },
  },
  async (input, ctx, call) => {
    const created = await ask(input, ctx, call);
    const asked = { session_id: created.id, url: created.human_url, link_expires_at: created.link_expires_at };
    if (input.wait_seconds === undefined) return asked;
    // The person needs the link before there can be an answer to wait for: the first progress message carries it.
    return { ...asked, ...(await answerAfterWait(ctx, call, created.id, input.wait_seconds, `the answer at ${created.human_url}`)) };
  },
  (input) => [...questionProblems(input), ...decisionProblems(input)],
  // A task answers at once whatever wait_seconds says: the task itself is the wait.
  async (input, ctx, call) => taskCreated(await ask(input, ctx, call)),
);

const getAnswerTool = tool<{ session_id: string; wait_seconds?: number }>(
  {
    name: 'get_answer',
    title: 'Read the answer',
    description:
      "Reads the person's answer to an ask_human question: {status, action, data, accepted_at, receipt, link_expires_at}. With wait_seconds it first waits " +
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
      ? readAnswer(ctx, input.session_id, call.signal)
      : answerAfterWait(ctx, call, input.session_id, input.wait_seconds, `the answer to ${input.session_id}`),
);

const listEvents = tool<{ session_id: string; after?: number }>(
  {
    name: 'list_events',
    title: 'List the events of a Session',
    description:
      'Lists what happened to a Session in order: each accepted answer (with its data and receipt), each revision published, its completion, ' +
      'its messages to responders, its extensions and its expiry; with link_expires_at. With after, only the events whose sequence is greater.',
    inputSchema: {
      type: 'object',
      required: ['session_id'],
      additionalProperties: false,
      properties: { session_id: sessionId, after: { type: 'integer', minimum: 0, description: 'Only events with a greater sequence number.' } },
    },
    outputSchema: {
      type: 'object',
      required: ['session_id', 'events', 'link_expires_at'],
      additionalProperties: false,
      properties: { session_id: { type: 'string' }, events: sessionEventsSchema, link_expires_at: linkExpiresAt },
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async (input, ctx, { signal }) => {
    const [{ events }, session] = await Promise.all([ctx.client.events(input.session_id, { signal }), ctx.client.getSession(input.session_id, { signal })]);
    return { session_id: input.session_id, events: events.filter((event) => event.sequence > (input.after ?? 0)), link_expires_at: session.link_expires_at };
  },
);

const completeSession = tool<{ session_id: string }>(
  {
    name: 'complete_session',
    title: 'Complete a Session',
    description:
      'Closes an ask_human question: the link takes no further answer (use it once the answer is acted on, or to withdraw a question nobody should answer any more). ' +
      'Returns what get_answer would, with status completed and the last answer, if any. Completing a completed Session changes nothing.',
    inputSchema: { type: 'object', required: ['session_id'], additionalProperties: false, properties: { session_id: sessionId } },
    outputSchema: answerSchema,
    annotations: { readOnlyHint: false, openWorldHint: false },
  },
  async (input, ctx, { signal }) => {
    // The Session as it is now, so that the If-Match the completion sends is current; the completion answers with the Session completed.
    const session = await ctx.client.getSession(input.session_id, { signal });
    const completed = session.status !== 'completed' && session.status !== undefined ? await ctx.client.complete(input.session_id, { signal }) : session;
    return verifiedAnswer(ctx, completed, signal);
  },
);

export const TOOLS: readonly Tool[] = [askHuman, getAnswerTool, listEvents, completeSession];
