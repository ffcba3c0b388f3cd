import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyReceipt, type SessionEvent } from '../../src/client/index.js';
import { HOUR, ManualClock } from '../../src/clock.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { WAIT_SECONDS_MAX } from '../../src/client/index.js';
import { bearer, developer, useMailbox } from '../accounts/support.js';
import { answerOnProgress, answerThroughLink, listeningApp } from '../client/support.js';
import { withTestApp } from '../support/app.js';
import { useTestApp } from '../support/lifecycle.js';
import { interactive } from '../support/sessions.js';

/**
 * The MCP server the service hosts at /mcp, as an agent reaches it with nothing installed: the
 * SDK's own client over its Streamable HTTP transport, with a key as Bearer, against the real
 * service over real sockets and PostgreSQL. The service's clock is the manual one.
 */

const mailbox = useMailbox();
const clock = new ManualClock(new Date());
const { db, t } = useTestApp(async () => {
  const options = await listeningApp();
  return { ...options, clock, config: { ...options.config, smtpUrl: mailbox.url } };
});

const endpoint = () => new URL('/mcp', t.ctx.config.publicOrigin);

/** An agent connected to /mcp (of the app at `origin`) with `key`. */
async function connect(key: string, origin = t.ctx.config.publicOrigin): Promise<Client> {
  const agent = new Client({ name: 'hosted-test-agent', version: '1.0.0' });
  await agent.connect(new StreamableHTTPClientTransport(new URL('/mcp', origin), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return agent;
}

type Call = CallToolResult & { structuredContent?: Record<string, unknown> };

async function call(agent: Client, name: string, args: Record<string, unknown>, options: Parameters<Client['callTool']>[2] = {}): Promise<Call> {
  const result = (await agent.callTool({ name, arguments: args }, undefined, options)) as Call;
  if (!result.isError) expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(result.structuredContent);
  return result;
}

const errorOf = (result: Call) => {
  expect(result.isError).toBe(true);
  return (JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { error: { code: string; reason?: string; request_id?: string } }).error;
};

/** What an MCP client sends first, as raw HTTP. */
const initialize = (headers: Record<string, string>) =>
  fetch(endpoint(), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });

let owner: Client;
beforeAll(async () => {
  owner = await connect(t.ctx.config.ownerKey!);
});
afterAll(async () => {
  await owner?.close();
});

it('lists the stdio server\'s tools: ask_human, get_answer, list_events and complete_session', async () => {
  const { tools } = await owner.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(['ask_human', 'get_answer', 'list_events', 'complete_session']);
  // The stdio server's definitions, schemas and all.
  expect(tools).toEqual(TOOLS.map((tool) => tool.definition));
  expect(owner.getServerVersion()?.name).toBe('svc-handoff');
  expect(owner.getInstructions()).toMatch(/ask_human/);
});

it('asks through a link, and get_answer returns the answer with a receipt that verifies', async () => {
  const asked = await call(owner, 'ask_human', { title: 'Refund order 1042?', fields: [{ name: 'amount', label: 'Amount', type: 'number', required: true }], actions: ['Approve', 'Reject'] });
  const { session_id, url } = asked.structuredContent as { session_id: string; url: string };
  expect(url).toMatch(new RegExp(`^${t.ctx.config.publicOrigin}/s/`));
  expect((await call(owner, 'get_answer', { session_id })).structuredContent).toMatchObject({ status: 'pending', receipt: null });

  expect((await answerThroughLink(url, 'approve', { amount: '20' })).status).toBe(200);
  const answer = (await call(owner, 'get_answer', { session_id })).structuredContent as { action: string; data: Record<string, unknown>; accepted_at: string; receipt: string };
  expect(answer).toMatchObject({ status: 'answered', action: 'approve', data: { amount: 20 }, receipt: expect.any(String) });

  const { events } = (await call(owner, 'list_events', { session_id })).structuredContent as { events: SessionEvent[] };
  const [{ event_id, revision, actor }] = events as [SessionEvent];
  const response = { event_id, sequence: 1, revision, actor, action_id: answer.action, data: answer.data, accepted_at: answer.accepted_at, receipt: answer.receipt };
  const claims = await verifyReceipt(answer.receipt, {
    keysUrl: `${t.ctx.config.publicOrigin}/.well-known/svc-receipt-keys.json`,
    expected: { issuer: t.ctx.config.publicOrigin, audience: 'wks_operator', sessionId: session_id, response },
  });
  expect(claims).toMatchObject({ session_id, action_id: 'approve', event_id });
});

it('streams a wait: the link as progress at once, then the answer in the same response', async () => {
  const person = answerOnProgress('hold');
  const result = await call(owner, 'ask_human', { title: 'Deploy to production?', fields: [], actions: ['Deploy', 'Hold'], wait_seconds: WAIT_SECONDS_MAX }, { onprogress: person.onprogress });
  await person.answered();
  expect(result.structuredContent).toMatchObject({ status: 'answered', action: 'hold', receipt: expect.any(String) });
});

it('streams a wait for longer than a request may take to arrive', async () => {
  // The edge cuts a request that takes over its time to arrive (408); a response may take longer.
  const options = await listeningApp();
  await withTestApp(db, { ...options, clock, http: { timeouts: { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 } } }, async (short) => {
    const agent = await connect(short.ctx.config.ownerKey!, short.ctx.config.publicOrigin);
    try {
      const updates: number[] = [];
      const result = await call(agent, 'ask_human', { title: 'Anyone there?', fields: [], wait_seconds: 5 }, { onprogress: ({ progress }) => updates.push(progress) });
      expect(result.structuredContent).toMatchObject({ status: 'pending', next_step: expect.stringContaining('get_answer') });
      expect(updates).toEqual([0]);
    } finally {
      await agent.close();
    }
  });
});

it('get_answer says expired once the link_expires_at the service states has passed unanswered', async () => {
  const asked = await call(owner, 'ask_human', { title: 'Still there?', fields: [] });
  const { session_id } = asked.structuredContent as { session_id: string };
  clock.advance(720 * HOUR);
  try {
    expect((await call(owner, 'get_answer', { session_id })).structuredContent).toMatchObject({ status: 'expired', action: null });
  } finally {
    clock.advance(-720 * HOUR);
  }
});

it('ends a wait at the link\'s expiry: ask_human answers, not a tool error', async () => {
  // The service's clock set back: the link it makes has expired by the time the tool waits on it.
  clock.advance(-721 * HOUR);
  try {
    const result = await call(owner, 'ask_human', { title: 'Too late?', fields: [], wait_seconds: WAIT_SECONDS_MAX });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ session_id: expect.stringMatching(/^ses_/), action: null, receipt: null });
  } finally {
    clock.advance(721 * HOUR);
  }
});

describe('credentials', () => {
  it('answers 401 in the error envelope without a credential or with a bad one, before anything of MCP', async () => {
    for (const headers of [{}, { authorization: 'Bearer svc_sk_not_a_key' }, { authorization: `Basic ${t.ctx.config.ownerKey}` }] as Array<Record<string, string>>) {
      const res = await initialize(headers);
      expect(res.status).toBe(401);
      expect((await res.json()) as unknown).toMatchObject({ error: { code: 'UNAUTHORIZED', request_id: expect.stringMatching(/^req_/) } });
    }
    // The SDK's client reports the status, with the envelope as its message.
    await expect(connect('svc_sk_not_a_key')).rejects.toMatchObject({ code: 401, message: expect.stringContaining('UNAUTHORIZED') });
    // A trial's management credential opens no owner route, nor this one.
    expect((await initialize({ authorization: 'Bearer svc_mg_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })).status).toBe(401);
  });

  it('answers GET and DELETE with 405: every message is a POST, and there is no MCP session', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(endpoint(), { method, headers: { authorization: `Bearer ${t.ctx.config.ownerKey}`, accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect((await res.json()) as unknown).toMatchObject({ error: { code: 'ACTION_NOT_ALLOWED', reason: 'method_not_allowed' } });
    }
  });
});

describe("a developer key's agent", () => {
  let agent: Client;
  let made: { key: string; workspaceId: string };
  beforeAll(async () => {
    made = await developer(t, mailbox, 'hosted-mcp@example.com');
    agent = await connect(made.key);
  });
  afterAll(async () => {
    await agent?.close();
  });

  it("acts in the developer's own workspace: its Sessions, its receipts, nobody else's Sessions", async () => {
    const asked = await call(agent, 'ask_human', { title: 'Ship it?', fields: [], actions: ['Ship', 'Wait'] });
    const { session_id, url } = asked.structuredContent as { session_id: string; url: string };
    const { rows } = await db.pool.query<{ workspace_id: string }>('SELECT workspace_id FROM session_views WHERE session_id = $1', [session_id]);
    expect(rows[0]!.workspace_id).toBe(made.workspaceId);

    expect((await answerThroughLink(url, 'ship')).status).toBe(200);
    const answer = (await call(agent, 'get_answer', { session_id })).structuredContent as { receipt: string };
    expect(answer).toMatchObject({ status: 'answered', action: 'ship' });
    const claims = JSON.parse(Buffer.from(answer.receipt.split('.')[1]!, 'base64url').toString()) as { aud: string };
    expect(claims.aud).toBe(made.workspaceId);

    // The owner's Session is not in this workspace; nor is this one in the owner's.
    const owners = (await call(owner, 'ask_human', { title: 'Owner only', fields: [] })).structuredContent as { session_id: string };
    expect(errorOf(await call(agent, 'get_answer', { session_id: owners.session_id }))).toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect(errorOf(await call(owner, 'get_answer', { session_id }))).toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });

  it("is held to the workspace's quotas as the REST routes are: past 60 Sessions a minute, ask_human is refused RATE_LIMITED", async () => {
    const quota = await developer(t, mailbox, 'hosted-mcp-quota@example.com');
    const quotaAgent = await connect(quota.key);
    try {
      for (let i = 0; i < 60; i++) {
        const res = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: bearer(quota.key), payload: { interaction: interactive() } });
        expect(res.statusCode, res.body).toBe(201);
      }
      expect(errorOf(await call(quotaAgent, 'ask_human', { title: 'One more?', fields: [] }))).toMatchObject({
        code: 'RATE_LIMITED',
        reason: 'sessions_per_minute',
        request_id: expect.stringMatching(/^req_/),
      });
      // The owner key has no quota.
      expect((await call(owner, 'ask_human', { title: 'Owner again', fields: [] })).isError).toBeFalsy();
    } finally {
      await quotaAgent.close();
    }
  });
});

it('refuses a body that is not JSON with 400 in the error envelope, and a message that is not MCP as the transport does', async () => {
  const headers = { authorization: `Bearer ${t.ctx.config.ownerKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const broken = await fetch(endpoint(), { method: 'POST', headers, body: '{"jsonrpc": ' });
  expect(broken.status).toBe(400);
  expect((await broken.json()) as unknown).toMatchObject({ error: { code: 'INVALID_SCHEMA', request_id: expect.stringMatching(/^req_/) } });
  const notRpc = await fetch(endpoint(), { method: 'POST', headers, body: JSON.stringify({ hello: 'world' }) });
  expect(notRpc.status).toBe(400);
  expect((await notRpc.json()) as unknown).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
});
