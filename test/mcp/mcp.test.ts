import { fileURLToPath } from 'node:url';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ElicitRequestSchema, type CallToolResult, type ElicitRequestURLParams } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyReceipt, type SessionEvent } from '../../src/client/index.js';
import { WAIT_SECONDS_MAX } from '../../src/client/index.js';
import { PROGRESS_EVERY_MS } from '../../src/mcp/wait.js';
import { developer, useMailbox } from '../accounts/support.js';
import { answerOnProgress, answerThroughLink, listeningApp } from '../client/support.js';
import { useTestApp } from '../support/lifecycle.js';

/**
 * The MCP server as a desktop agent runs it (`npm --silent start -- mcp`, a child process speaking
 * MCP on stdio), driven by the SDK's own client, against the real service.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const mailbox = useMailbox();
const { t } = useTestApp(async () => {
  const options = await listeningApp();
  return { ...options, config: { ...options.config, smtpUrl: mailbox.url } };
});
let agent: Client;
let stderr = '';
const protocolErrors: Error[] = [];

/** The MCP server acting with `apiKey`, as an agent declaring `capabilities` connects to it. */
async function connect(apiKey: string, capabilities: ClientOptions['capabilities'] = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: 'npm',
    args: ['--silent', '--prefix', ROOT, 'start', '--', 'mcp'],
    env: { ...getDefaultEnvironment(), SVC_URL: t.ctx.config.publicOrigin, SVC_API_KEY: apiKey },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'test-agent', version: '1.0.0' }, { capabilities });
  // A line on stdout that is not an MCP message lands here.
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(transport);
  return client;
}

beforeAll(async () => {
  agent = await connect(t.ctx.config.ownerKey!);
});

afterAll(async () => {
  await agent?.close();
});

type Call = CallToolResult & { structuredContent?: Record<string, unknown> };

async function call(name: string, args: Record<string, unknown>, options: Parameters<Client['callTool']>[2] = {}, by = agent): Promise<Call> {
  const result = (await by.callTool({ name, arguments: args }, undefined, options)) as Call;
  const [content] = result.content as Array<{ type: string; text: string }>;
  expect(content!.type).toBe('text');
  // The same JSON as text, for clients that read only content.
  if (!result.isError) expect(JSON.parse(content!.text)).toEqual(result.structuredContent);
  return result;
}

const errorOf = (result: Call) => {
  expect(result.isError).toBe(true);
  return (JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { error: { code: string; message: string; request_id?: string } }).error;
};

const refundQuestion = {
  title: 'Refund order 1042?',
  description: 'The customer says the parcel arrived damaged.',
  fields: [
    { name: 'amount', label: 'Refund amount', type: 'number', required: true },
    { name: 'reason', label: 'Reason', type: 'choice', options: ['damaged', 'late', 'other'], required: true },
    { name: 'notify', label: 'Email the customer', type: 'boolean' },
    { name: 'note', label: 'Note', type: 'string' },
  ],
  actions: ['Approve refund', 'Reject'],
};

it('lists ask_human, get_answer, list_events and complete_session, each with an input and an output schema', async () => {
  const { tools } = await agent.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(['ask_human', 'get_answer', 'list_events', 'complete_session']);
  for (const tool of tools) {
    expect(tool.inputSchema.type).toBe('object');
    expect(tool.outputSchema?.type).toBe('object');
    expect(tool.description).toBeTruthy();
  }
  expect(agent.getInstructions()).toMatch(/ask_human/);
});

describe('asking a person', () => {
  it('asks through a link, and get_answer returns the typed answer with a receipt that verifies', async () => {
    const asked = await call('ask_human', refundQuestion);
    const { session_id, url, link_expires_at } = asked.structuredContent as { session_id: string; url: string; link_expires_at: string };
    expect(session_id).toMatch(/^ses_/);
    expect(url).toMatch(new RegExp(`^${t.ctx.config.publicOrigin}/s/`));
    expect((await call('get_answer', { session_id })).structuredContent).toEqual({ status: 'pending', action: null, data: null, accepted_at: null, receipt: null, link_expires_at });

    expect((await answerThroughLink(url, 'approve_refund', { amount: '20', reason: 'damaged', notify: 'true' })).status).toBe(200);
    const answer = (await call('get_answer', { session_id })).structuredContent as { status: string; action: string; data: Record<string, unknown>; accepted_at: string; receipt: string };
    expect(answer).toMatchObject({ status: 'answered', action: 'approve_refund', data: { amount: 20, reason: 'damaged', notify: true } });

    const { events } = (await call('list_events', { session_id })).structuredContent as { events: SessionEvent[] };
    expect(events.map((event) => [event.type, event.sequence, event.receipt])).toEqual([['response.accepted', 1, answer.receipt]]);
    // The receipt binds exactly what get_answer returned.
    const [{ event_id, revision, actor }] = events as [SessionEvent];
    const response = { event_id, sequence: 1, revision, actor, action_id: answer.action, data: answer.data, accepted_at: answer.accepted_at, receipt: answer.receipt };
    const claims = await verifyReceipt(answer.receipt, {
      keysUrl: `${t.ctx.config.publicOrigin}/.well-known/svc-receipt-keys.json`,
      expected: { issuer: t.ctx.config.publicOrigin, audience: 'wks_operator', sessionId: session_id, response },
    });
    expect(claims).toMatchObject({ session_id, action_id: 'approve_refund', action_label: 'Approve refund', summary: 'Approve refund: Refund order 1042? (revision 1)' });
    expect((await call('list_events', { session_id, after: 1 })).structuredContent).toEqual({ session_id, events: [], link_expires_at });
  });

  it('with wait_seconds, sends the link as progress and returns the answer once given', async () => {
    const person = answerOnProgress('hold');
    const result = await call('ask_human', { title: 'Deploy to production?', fields: [], actions: ['Deploy', 'Hold'], wait_seconds: WAIT_SECONDS_MAX }, { onprogress: person.onprogress });
    await person.answered();
    expect(result.structuredContent).toMatchObject({ session_id: expect.stringMatching(/^ses_/), status: 'answered', action: 'hold', data: {}, receipt: expect.any(String) });
    expect(result.structuredContent).not.toHaveProperty('next_step');
  });

  it('waiting with nobody answering, reports progress every 15 s and then says to call get_answer', async () => {
    // MCP clients time a call out after 60 s without news; the SDK client's default is exactly that.
    expect(PROGRESS_EVERY_MS).toBeLessThanOrEqual(15_000);
    const updates: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = await call('ask_human', { title: 'Anyone there?', fields: [], wait_seconds: 20 }, { onprogress: (update) => updates.push(update) });
    const { session_id, url } = result.structuredContent as { session_id: string; url: string };
    expect(result.structuredContent).toMatchObject({ status: 'pending', action: null, next_step: expect.stringContaining(`call get_answer with session_id ${session_id}`) });
    // The link at once, then each 15 s: the seconds waited grow, as MCP requires of progress.
    expect(updates).toEqual([
      { progress: 0, total: 20, message: `Waiting up to 20 s for the answer at ${url}` },
      { progress: 15, total: 20, message: `Still waiting (15 s of 20 s) for the answer at ${url}` },
    ]);
  });

  it('with wait_seconds 0, returns the link and status pending at once', async () => {
    const result = await call('ask_human', { title: 'Anyone there?', fields: [], wait_seconds: 0 });
    expect(result.structuredContent).toMatchObject({ url: expect.stringMatching(/\/s\//), status: 'pending', action: null, next_step: expect.stringContaining('get_answer') });
  });
});

describe('get_answer with wait_seconds', () => {
  it('waits for the answer and returns it as it comes; still pending at the end of the wait, it says to call get_answer again', async () => {
    const { session_id, url } = (await call('ask_human', { title: 'Ship it?', fields: [], actions: ['Ship', 'Hold'] })).structuredContent as { session_id: string; url: string };
    const quiet = await call('get_answer', { session_id, wait_seconds: 1 });
    expect(quiet.structuredContent).toMatchObject({ status: 'pending', action: null, next_step: expect.stringContaining(`call get_answer with session_id ${session_id}`) });
    let answered: Promise<unknown> | undefined;
    const waited = await call('get_answer', { session_id, wait_seconds: WAIT_SECONDS_MAX }, { onprogress: () => (answered ??= answerThroughLink(url, 'ship')) });
    await answered;
    expect(waited.structuredContent).toMatchObject({ status: 'answered', action: 'ship', receipt: expect.any(String) });
    expect(waited.structuredContent).not.toHaveProperty('next_step');
    const tooLong = errorOf(await call('get_answer', { session_id, wait_seconds: WAIT_SECONDS_MAX + 1 }));
    expect(tooLong).toEqual({ code: 'INVALID_ARGUMENTS', message: `get_answer: wait_seconds must be <= ${WAIT_SECONDS_MAX}.` });
  });
});

describe("a developer key's agent", () => {
  let developerAgent: Client;
  let workspaceId: string;
  beforeAll(async () => {
    const made = await developer(t, mailbox, 'mcp@example.com');
    workspaceId = made.workspaceId;
    developerAgent = await connect(made.key);
  });
  afterAll(async () => {
    await developerAgent?.close();
  });

  it("gets the answer with its receipt checked for the developer's own workspace", async () => {
    const asked = await call('ask_human', { title: 'Ship it?', fields: [], actions: ['Ship', 'Wait'] }, {}, developerAgent);
    const { session_id, url } = asked.structuredContent as { session_id: string; url: string };
    expect((await answerThroughLink(url, 'ship')).status).toBe(200);
    const answer = (await call('get_answer', { session_id }, {}, developerAgent)).structuredContent as { status: string; receipt: string };
    expect(answer).toMatchObject({ status: 'answered', action: 'ship', receipt: expect.any(String) });
    const claims = JSON.parse(Buffer.from(answer.receipt.split('.')[1]!, 'base64url').toString()) as { aud: string };
    expect(claims.aud).toBe(workspaceId);
  });
});

describe('tasks and URL-mode elicitation, on stdio', () => {
  it('shows the link by URL-mode elicitation to a client that declares it, and runs ask_human as a task that completes with the answer', async () => {
    const eliciting = await connect(t.ctx.config.ownerKey!, { elicitation: { url: {} } });
    const shown: ElicitRequestURLParams[] = [];
    const answered: Array<Promise<unknown>> = [];
    eliciting.setRequestHandler(ElicitRequestSchema, (request) => {
      const params = request.params as ElicitRequestURLParams;
      shown.push(params);
      answered.push(answerThroughLink(params.url, 'ship'));
      return { action: 'accept' };
    });
    try {
      await eliciting.listTools();
      const messages: string[] = [];
      let result: Call | undefined;
      const args = { title: 'Ship it?', actions: ['Ship', 'Hold'] };
      for await (const message of eliciting.experimental.tasks.callToolStream({ name: 'ask_human', arguments: args }, CallToolResultSchema, { task: {} })) {
        messages.push(message.type);
        if (message.type === 'result') result = message.result as Call;
        if (message.type === 'error') throw message.error;
      }
      await Promise.all(answered);
      expect(messages[0]).toBe('taskCreated');
      expect(messages.at(-1)).toBe('result');
      expect(result!.structuredContent).toMatchObject({ status: 'answered', action: 'ship', receipt: expect.any(String), link_expires_at: expect.any(String) });
      expect(shown).toEqual([{ mode: 'url', elicitationId: result!.structuredContent!.session_id, url: expect.stringMatching(/\/s\//), message: expect.stringContaining('"Ship it?"') }]);
    } finally {
      await eliciting.close();
    }
  });
});

describe('failures an agent can act on', () => {
  it('refuses bad arguments with every problem named, and no stack trace', async () => {
    const error = errorOf(
      await call('ask_human', {
        title: ' ',
        fields: [{ name: 'Amount', label: 'Amount', type: 'money' }, { name: 'reason', label: 'Reason' }],
        colour: 'blue',
      }),
    );
    expect(error.code).toBe('INVALID_ARGUMENTS');
    expect(error.message).toContain('title must not be blank');
    expect(error.message).toContain('fields[0].type must be one of string, number, boolean, choice');
    expect(error.message).toContain('fields[1].type is required');
    expect(error.message).toContain('there is no argument colour');
    expect(error.message).not.toMatch(/\n\s+at /);

    const choice = errorOf(await call('ask_human', { title: 'Pick', fields: [{ name: 'pick', label: 'Pick', type: 'choice' }] }));
    expect(choice.message).toBe('ask_human: fields[0]: a choice field needs options (a list of strings).');
    expect(errorOf(await call('get_answer', {})).message).toBe('get_answer: session_id is required.');
    expect(errorOf(await call('get_answer', { session_id: 42 })).message).toBe('get_answer: session_id must be string.');
    // A longer wait would outlast the minute an MCP client gives a call.
    const tooLong = errorOf(await call('ask_human', { title: 'Wait long', fields: [], wait_seconds: WAIT_SECONDS_MAX + 1 }));
    expect(tooLong).toEqual({ code: 'INVALID_ARGUMENTS', message: `ask_human: wait_seconds must be <= ${WAIT_SECONDS_MAX}.` });
  });

  it("returns a service refusal as a tool error carrying the service's code", async () => {
    const error = errorOf(await call('get_answer', { session_id: 'ses_00000000000000000000000000' }));
    expect(error).toMatchObject({ code: 'SESSION_NOT_FOUND', request_id: expect.stringMatching(/^req_/) });
  });

  it('wrote nothing but MCP on stdout, and its log line on stderr', () => {
    expect(protocolErrors).toEqual([]);
    expect(stderr).toContain('mcp: ask_human, get_answer, list_events, complete_session for');
  });
});
