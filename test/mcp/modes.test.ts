import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  type CallToolResult,
  type ElicitRequestURLParams,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAIT_SECONDS_MAX } from '../../src/client/index.js';
import { TASK_POLL_MS } from '../../src/mcp/tasks.js';
import { developer, useMailbox } from '../accounts/support.js';
import { answerThroughLink, listeningApp } from '../client/support.js';
import { claimsOf, linkIn, mailTo, notifierOf, sessionOf } from '../notifications/support.js';
import { useTestApp } from '../support/lifecycle.js';

/**
 * The hosted MCP endpoint in each mode a client may declare, driven by the SDK's own client over
 * Streamable HTTP against the live service and PostgreSQL: tasks (ask_human answers at once with
 * a task that completes when the person answers), URL-mode elicitation (the link shown to the
 * host's user), and neither (today's answers). Also what every tool answers: link_expires_at,
 * notify_email, complete_session, and a decision by several people (required).
 */

const mailbox = useMailbox();
const { t } = useTestApp(async () => {
  const options = await listeningApp();
  return { ...options, config: { ...options.config, smtpUrl: mailbox.url } };
});

/** An agent connected to /mcp with `key`, declaring `capabilities`. */
async function connect(key: string, capabilities: ClientOptions['capabilities'] = {}): Promise<Client> {
  const agent = new Client({ name: 'modes-test-agent', version: '1.0.0' }, { capabilities });
  await agent.connect(new StreamableHTTPClientTransport(new URL('/mcp', t.ctx.config.publicOrigin), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  await agent.listTools();
  return agent;
}

type Call = CallToolResult & { structuredContent?: Record<string, unknown> };

const call = async (agent: Client, name: string, args: Record<string, unknown>) => (await agent.callTool({ name, arguments: args })) as Call;

/** An agent whose host shows URL elicitations: each is recorded and, like a person opening the link, answered with `actionId`. */
async function elicitingAgent(actionId: string): Promise<{ agent: Client; shown: ElicitRequestURLParams[]; answered: Array<Promise<unknown>> }> {
  const agent = await connect(t.ctx.config.ownerKey!, { elicitation: { url: {} } });
  const shown: ElicitRequestURLParams[] = [];
  const answered: Array<Promise<unknown>> = [];
  agent.setRequestHandler(ElicitRequestSchema, (request) => {
    const params = request.params as ElicitRequestURLParams;
    shown.push(params);
    answered.push(answerThroughLink(params.url, actionId));
    return { action: 'accept' };
  });
  return { agent, shown, answered };
}

/** Creates ask_human as a task, the way a client that supports tasks calls it. */
const askAsTask = (agent: Client, args: Record<string, unknown>) =>
  agent.request({ method: 'tools/call', params: { name: 'ask_human', arguments: args, task: { ttl: 60_000 } } }, CreateTaskResultSchema);

const linkOf = (task: Task) => /https?:\/\/\S+\/s\/[A-Za-z0-9_-]+/.exec(task.statusMessage ?? '')![0];

let owner: Client;
beforeAll(async () => {
  owner = await connect(t.ctx.config.ownerKey!);
});
afterAll(async () => {
  await owner?.close();
});

describe('tasks', () => {
  it('declares tasks for tools/call, and ask_human alone as a tool that may run as one', async () => {
    expect(owner.getServerCapabilities()?.tasks).toEqual({ requests: { tools: { call: {} } } });
    const { tools } = await owner.listTools();
    expect(tools.map((tool) => [tool.name, tool.execution?.taskSupport])).toEqual([
      ['ask_human', 'optional'],
      ['get_answer', undefined],
      ['list_events', undefined],
      ['complete_session', undefined],
    ]);
  });

  it('ask_human as a task answers at once with the task and the link; the task completes when the person answers, with the answer and its receipt', async () => {
    const messages: string[] = [];
    let result: Call | undefined;
    let answered: Promise<unknown> | undefined;
    const args = { title: 'Ship it?', actions: ['Ship', 'Hold'], wait_seconds: WAIT_SECONDS_MAX };
    for await (const message of owner.experimental.tasks.callToolStream({ name: 'ask_human', arguments: args }, CallToolResultSchema, { task: { ttl: 60_000 } })) {
      messages.push(message.type);
      if (message.type === 'taskCreated') {
        // At once, whatever wait_seconds says: the task is the wait.
        expect(message.task).toMatchObject({ taskId: expect.stringMatching(/^ses_/), status: 'working', pollInterval: TASK_POLL_MS });
        answered = answerThroughLink(linkOf(message.task), 'hold');
        await answered;
      }
      if (message.type === 'result') result = message.result as Call;
      if (message.type === 'error') throw message.error;
    }
    expect(messages).toEqual(['taskCreated', 'taskStatus', 'result']);
    expect(result!.structuredContent).toMatchObject({ session_id: expect.stringMatching(/^ses_/), status: 'answered', action: 'hold', receipt: expect.any(String), link_expires_at: expect.any(String) });
    expect(claimsOf(result!.structuredContent!.receipt as string)).toMatchObject({ action_id: 'hold', session_id: result!.structuredContent!.session_id });
  });

  it('tasks/result waits for the answer; tasks/get says working until then; the task is the Session, read on every request', async () => {
    const created = await askAsTask(owner, { title: 'Refund order 1042?', fields: [{ name: 'amount', label: 'Amount', type: 'number', required: true }], actions: ['Approve', 'Reject'] });
    const { taskId } = created.task;
    expect(created._meta?.['io.modelcontextprotocol/model-immediate-response']).toContain(linkOf(created.task));
    expect(created.task.statusMessage).toContain(`session_id ${taskId}`);
    expect(await owner.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'working' });

    const waiting = owner.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect((await answerThroughLink(linkOf(created.task), 'approve', { amount: '20' })).status).toBe(200);
    const result = (await waiting) as Call;
    expect(result.structuredContent).toMatchObject({ session_id: taskId, status: 'answered', action: 'approve', data: { amount: 20 } });
    expect(result._meta?.['io.modelcontextprotocol/related-task']).toEqual({ taskId });
    expect(await owner.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'completed' });
    // A new agent (a new connection, and on the hosted endpoint a new server per request) reads the same task.
    const again = await connect(t.ctx.config.ownerKey!);
    try {
      expect(((await again.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as Call).structuredContent).toEqual(result.structuredContent);
    } finally {
      await again.close();
    }
  });

  it('a task ends when the Session is completed, and complete_session answers as get_answer does', async () => {
    const { task } = await askAsTask(owner, { title: 'Withdrawn?' });
    const completed = await call(owner, 'complete_session', { session_id: task.taskId });
    expect(completed.structuredContent).toEqual({ status: 'completed', action: null, data: null, accepted_at: null, receipt: null, link_expires_at: expect.any(String) });
    expect(await owner.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'completed' });
    expect(((await owner.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as Call).structuredContent).toMatchObject({ status: 'completed' });
    // Completing it again changes nothing.
    expect((await call(owner, 'complete_session', { session_id: task.taskId })).structuredContent).toEqual(completed.structuredContent);
  });

  it("refuses what is no task: another workspace's Session, an ID that is no Session's, a tool that answers at once, bad arguments", async () => {
    const made = await developer(t, mailbox, 'modes-tasks@example.com');
    const other = await connect(made.key);
    try {
      const { task } = await askAsTask(owner, { title: 'Owner only' });
      await expect(other.experimental.tasks.getTask(task.taskId)).rejects.toThrow(`Task not found: ${task.taskId}`);
      await expect(other.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toThrow('Task not found');
    } finally {
      await other.close();
    }
    await expect(owner.experimental.tasks.getTask('not-a-task')).rejects.toThrow('Task not found: not-a-task');
    const asTask = (name: string, args: Record<string, unknown>) =>
      owner.request({ method: 'tools/call', params: { name, arguments: args, task: {} } }, CreateTaskResultSchema);
    await expect(asTask('get_answer', { session_id: 'ses_00000000000000000000000000' })).rejects.toMatchObject({ code: -32602, data: { code: 'TASK_NOT_SUPPORTED' } });
    await expect(asTask('ask_human', { title: ' ' })).rejects.toMatchObject({ code: -32602, data: { code: 'INVALID_ARGUMENTS' } });
  });
});

describe('URL-mode elicitation', () => {
  it("shows the link to the host's user while ask_human waits, and returns the answer given through it", async () => {
    const { agent, shown, answered } = await elicitingAgent('ship');
    try {
      const result = await call(agent, 'ask_human', { title: 'Deploy to production?', actions: ['Ship', 'Hold'], wait_seconds: WAIT_SECONDS_MAX });
      await Promise.all(answered);
      const { session_id, url } = result.structuredContent as { session_id: string; url: string };
      expect(shown).toEqual([{ mode: 'url', elicitationId: session_id, url, message: expect.stringContaining('"Deploy to production?"') }]);
      expect(result.structuredContent).toMatchObject({ status: 'answered', action: 'ship', receipt: expect.any(String) });
    } finally {
      await agent.close();
    }
  });

  it('with tasks too: the link is shown and the task is answered at once', async () => {
    const { agent, shown, answered } = await elicitingAgent('approve');
    try {
      const { task } = await askAsTask(agent, { title: 'Approve?', actions: ['Approve'] });
      await Promise.all(answered);
      expect(shown.map((params) => params.elicitationId)).toEqual([task.taskId]);
      expect(((await agent.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as Call).structuredContent).toMatchObject({ status: 'answered', action: 'approve' });
    } finally {
      await agent.close();
    }
  });
});

describe('neither', () => {
  it('a client that declares neither (form elicitation only, no task) is answered as before: no elicitation, the link in the result', async () => {
    const agent = await connect(t.ctx.config.ownerKey!, { elicitation: { form: {} } });
    const elicited: unknown[] = [];
    agent.setRequestHandler(ElicitRequestSchema, (request) => {
      elicited.push(request.params);
      return { action: 'decline' };
    });
    try {
      const result = await call(agent, 'ask_human', { title: 'Anyone?', wait_seconds: 1 });
      expect(result.structuredContent).toMatchObject({ url: expect.stringMatching(/\/s\//), status: 'pending', next_step: expect.stringContaining('get_answer') });
      expect(elicited).toEqual([]);
    } finally {
      await agent.close();
    }
  });
});

describe('what every tool answers', () => {
  it('link_expires_at on ask_human, get_answer, list_events and complete_session, the Session\'s own', async () => {
    const asked = (await call(owner, 'ask_human', { title: 'When?' })).structuredContent as { session_id: string; link_expires_at: string };
    const { link_expires_at } = (await sessionOf(t, asked.session_id)) as unknown as { link_expires_at: string };
    expect(asked.link_expires_at).toBe(link_expires_at);
    for (const name of ['get_answer', 'list_events', 'complete_session']) {
      expect((await call(owner, name, { session_id: asked.session_id })).structuredContent).toMatchObject({ link_expires_at });
    }
  });

  it('notify_email: the service mails each address a link of its own, and the answer through it names that responder', async () => {
    const asked = (await call(owner, 'ask_human', { title: 'Approve the budget?', actions: ['Approve', 'Reject'], notify_email: ['ana@example.com', 'bo@example.com'] }))
      .structuredContent as { session_id: string };
    expect(await notifierOf(t).drain()).toBe(2);
    const [ana] = mailTo(mailbox, 'ana@example.com');
    expect(mailTo(mailbox, 'bo@example.com')).toHaveLength(1);
    expect((await answerThroughLink(`${t.ctx.config.publicOrigin}${linkIn(ana!).path}`, 'approve')).status).toBe(200);

    const answer = (await call(owner, 'get_answer', { session_id: asked.session_id })).structuredContent as { action: string; receipt: string };
    const { responders } = await sessionOf(t, asked.session_id);
    const anaId = responders!.find((r) => r.address === 'ana@example.com')!.id;
    expect(answer.action).toBe('approve');
    expect(claimsOf(answer.receipt)).toMatchObject({ sub: anaId, assurance: 'email_link' });

    const bad = await call(owner, 'ask_human', { title: 'Mail whom?', notify_email: ['not an address'] });
    expect(bad.isError).toBe(true);
    expect((bad.content as Array<{ text: string }>)[0]!.text).toContain('notify_email[0]');
  });
});

describe('a decision by several people', () => {
  it('required 2 of 2 emailed people: one approval leaves it pending, the wait ends at the second, and the tool answers the outcome with its resolution receipt', async () => {
    const addresses = ['cy@example.com', 'di@example.com'];
    const asked = (await call(owner, 'ask_human', { title: 'Deploy the release?', actions: ['Approve', 'Reject'], notify_email: addresses, required: 2 }))
      .structuredContent as { session_id: string };
    expect(await notifierOf(t).drain()).toBe(2);
    const [cy, di] = addresses.map((address) => `${t.ctx.config.publicOrigin}${linkIn(mailTo(mailbox, address)[0]!).path}`);
    const { responders } = await sessionOf(t, asked.session_id);
    const [cyId, diId] = addresses.map((address) => responders!.find((r) => r.address === address)!.id);

    expect((await answerThroughLink(cy!, 'approve')).status).toBe(200);
    // One person's answer is not the outcome.
    expect((await call(owner, 'get_answer', { session_id: asked.session_id })).structuredContent).toMatchObject({
      status: 'pending',
      action: null,
      receipt: null,
      decision: { required: 2, outcome: null, approvals: [cyId], vetoed_by: null, resolved_at: null },
    });

    const waiting = call(owner, 'get_answer', { session_id: asked.session_id, wait_seconds: WAIT_SECONDS_MAX });
    expect((await answerThroughLink(di!, 'approve')).status).toBe(200);
    const answer = (await waiting).structuredContent as { receipt: string; decision: { resolved_at: string } };
    expect(answer).toMatchObject({ status: 'answered', decision: { required: 2, outcome: 'approved', approvals: [cyId, diId], vetoed_by: null } });
    expect(answer).toMatchObject({ accepted_at: answer.decision.resolved_at });
    expect(claimsOf(answer.receipt)).toMatchObject({ session_id: asked.session_id, outcome: 'approved', required: 2, responses: [{ sub: cyId }, { sub: diId }] });
  });

  it('refuses a decision the service could not take, naming the argument', async () => {
    const refusal = async (args: Record<string, unknown>) => {
      const result = await call(owner, 'ask_human', { title: 'Who decides?', actions: ['Approve', 'Reject'], ...args });
      expect(result.isError).toBe(true);
      return (result.content as Array<{ text: string }>)[0]!.text;
    };
    expect(await refusal({ required: 2, notify_email: ['ed@example.com'] })).toContain('notify_email names 1');
    expect(await refusal({ required: 1 })).toContain('notify_email names 0');
    expect(await refusal({ required: 1, notify_email: ['ed@example.com'], count: ['approve'], veto: ['approve'] })).toContain('count and veto share approve');
    expect(await refusal({ required: 1, notify_email: ['ed@example.com'], veto: ['refuse'] })).toMatch(/veto\[0\]: .*refuse.* is no button/);
    expect(await refusal({ count: ['approve'] })).toContain('only with required');
    const oneButton = await call(owner, 'ask_human', { title: 'Alone?', required: 1, notify_email: ['ed@example.com'] });
    expect((oneButton.content as Array<{ text: string }>)[0]!.text).toContain('needs a button that vetoes');
  });
});
