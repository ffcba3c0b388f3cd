import { ErrorCode, McpError, RELATED_TASK_META_KEY, type CallToolResult, type CreateTaskResult, type Task } from '@modelcontextprotocol/sdk/types.js';
import { HandoffError, PATTERNS, WAIT_SECONDS_MAX } from '../client/index.js';
import { answerOf, type Answer } from './answer.js';
import { readAnswer, type ToolContext } from './reading.js';
import { waitForAnswer } from './wait.js';

/**
 * ask_human as an MCP task (the client asked for one: `task` on tools/call): the task is the
 * Session itself. Its ID is the Session's ID and its state is read from the Session each time, so
 * nothing is kept between requests: the hosted endpoint, one server per request, answers
 * tasks/get and tasks/result on any process, and a restart loses no task. The credential that
 * reads is the caller's, so another workspace's Session is no task of theirs.
 */

/** How often a client should ask after a task (tasks/get): people answer in minutes, not milliseconds. */
export const TASK_POLL_MS = 5_000;

/** Where MCP lets a created task carry a text for the model at once (the tasks specification's key). */
const IMMEDIATE_RESPONSE = 'io.modelcontextprotocol/model-immediate-response';

const STATUS_MESSAGES: Record<Answer['status'], string> = {
  pending: "Waiting for the person's answer: tasks/result returns it when it comes.",
  answered: 'The person answered: tasks/result returns the answer with its receipt.',
  completed: 'The Session was completed: tasks/result returns its last answer, if any.',
  expired: 'The link expired unanswered: tasks/result says so.',
};

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** When the Session was created: the milliseconds its ID (a ULID after `ses_`) starts with. */
function createdAtOf(sessionId: string): string {
  let ms = 0;
  for (const char of sessionId.slice(4, 14)) ms = ms * 32 + CROCKFORD.indexOf(char);
  return new Date(ms).toISOString();
}

type TaskState = Pick<Answer, 'status' | 'accepted_at' | 'link_expires_at'>;

/** The task of a Session: working until an answer, a completion or the link's expiry ends it; kept at least until the link expires. */
function taskOf(sessionId: string, state: TaskState, statusMessage = STATUS_MESSAGES[state.status]): Task {
  const createdAt = createdAtOf(sessionId);
  return {
    taskId: sessionId,
    status: state.status === 'pending' ? 'working' : 'completed',
    ttl: Math.max(0, Date.parse(state.link_expires_at) - Date.parse(createdAt)),
    createdAt,
    lastUpdatedAt: state.accepted_at !== null && state.accepted_at > createdAt ? state.accepted_at : createdAt,
    pollInterval: TASK_POLL_MS,
    statusMessage,
  };
}

/** What tools/call answers at once for a task: the task, and the link the person needs, for the model to pass on. */
export function taskCreated(created: { id: string; human_url: string; link_expires_at: string }): CreateTaskResult {
  const message = `Send this link to the person who should answer: ${created.human_url} (it takes answers until ${created.link_expires_at}; session_id ${created.id}).`;
  return {
    task: taskOf(created.id, { status: 'pending', accepted_at: null, link_expires_at: created.link_expires_at }, message),
    _meta: { [IMMEDIATE_RESPONSE]: message },
  };
}

const notFound = (taskId: string) => new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);

/** Reads a task's Session: one that cannot be read is no task; any other refusal says what the service answered. */
async function reading<T>(taskId: string, read: () => Promise<T>): Promise<T> {
  if (!new RegExp(PATTERNS.sessionId).test(taskId)) throw notFound(taskId);
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof HandoffError)) throw error;
    if (['SESSION_NOT_FOUND', 'NO_RESPONSE_POSSIBLE'].includes(error.code)) throw notFound(taskId);
    throw new McpError(ErrorCode.InternalError, `${error.code}: ${error.message}`, { code: error.code, reason: error.reason, request_id: error.request_id });
  }
}

/** tasks/get: the task's state, from one read of the Session (a client polls it: the receipt is verified once, by tasks/result). */
export function getTask(ctx: ToolContext, taskId: string, signal: AbortSignal): Promise<Task> {
  return reading(taskId, async () => taskOf(taskId, answerOf(await ctx.client.getSession(taskId, { signal }), ctx.now())));
}

/**
 * tasks/result: ask_human's result once the task has ended, waiting for it (at most
 * WAIT_SECONDS_MAX, as a tool's wait); a task still working then is an error that says to ask again.
 */
export function getTaskResult(ctx: ToolContext, taskId: string, signal: AbortSignal): Promise<CallToolResult> {
  return reading(taskId, async () => {
    await waitForAnswer(ctx.client, { signal, progress: () => Promise.resolve() }, taskId, WAIT_SECONDS_MAX, `the answer to ${taskId}`);
    const answer = await readAnswer(ctx, taskId, signal);
    if (answer.status === 'pending') {
      throw new McpError(ErrorCode.InvalidRequest, `Task ${taskId} is still working after ${WAIT_SECONDS_MAX} s: call tasks/result again, or poll tasks/get.`);
    }
    const result = { session_id: taskId, ...answer };
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result, _meta: { [RELATED_TASK_META_KEY]: { taskId } } };
  });
}
