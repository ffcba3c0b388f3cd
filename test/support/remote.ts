import { interactive } from './sessions.js';
import { answer, type Receiver } from './https-receiver.js';

/**
 * The owner API and the human link of a service process, over HTTP as an agent and a browser call
 * them: each call one request, never retried, so a test knows exactly what was acknowledged.
 */

export interface Answer {
  status: number;
  etag: string | undefined;
  body: string;
  json<T>(): T;
}

export interface Remote {
  baseUrl: string;
  call(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string> }): Promise<Answer>;
  create(interaction?: object): Promise<{ id: string; token: string; etag: string }>;
  /** PATCH with If-Match: the answer as it came. */
  publish(id: string, etag: string, interaction?: object): Promise<Answer>;
  /** A person's answer to `revision` through the link, as the page posts it. */
  answer(token: string, revision: number, clientEventId: string): Promise<Answer>;
  /** Registers `receiver` as the webhook endpoint and verifies it; the signing secret. */
  registerVerified(receiver: Receiver): Promise<string>;
}

export function remote(baseUrl: string, ownerKey: string): Remote {
  const owner = { authorization: `Bearer ${ownerKey}` };
  const call: Remote['call'] = async (method, path, options = {}) => {
    const json = options.body !== undefined && typeof options.body !== 'string';
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...owner, ...(json ? { 'content-type': 'application/json' } : {}), ...options.headers },
      body: options.body === undefined ? undefined : json ? JSON.stringify(options.body) : (options.body as string),
    });
    const body = await res.text();
    return { status: res.status, etag: res.headers.get('etag') ?? undefined, body, json: <T>() => JSON.parse(body) as T };
  };
  const expectStatus = (answer: Answer, status: number, what: string) => {
    if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${answer.body}`);
    return answer;
  };
  return {
    baseUrl,
    call,
    async create(interaction = interactive()) {
      const res = expectStatus(await call('POST', '/v1/sessions', { body: { interaction } }), 201, 'create');
      const { id, human_url } = res.json<{ id: string; human_url: string }>();
      return { id, token: human_url.split('/s/')[1]!, etag: res.etag! };
    },
    publish: (id, etag, interaction = interactive({ title: `Revised at ${Date.now()}` })) =>
      call('PATCH', `/v1/sessions/${id}`, { body: { interaction }, headers: { 'if-match': etag } }),
    answer: (token, revision, clientEventId) =>
      call('POST', `/s/${token}`, {
        body: new URLSearchParams([
          ['client_event_id', clientEventId],
          ['surface_revision', String(revision)],
          ['action_id', 'approve'],
          ['data.amount', '42.5'],
        ]).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
      }),
    async registerVerified(receiver) {
      const put = expectStatus(await call('PUT', '/v1/webhook', { body: { url: receiver.url } }), 201, 'register the endpoint');
      receiver.respond((request, res) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: (JSON.parse(request.body) as { challenge: string }).challenge }));
      });
      expectStatus(await call('POST', '/v1/webhook/verify'), 200, 'verify the endpoint');
      receiver.respond(answer(200));
      receiver.requests.length = 0;
      return put.json<{ signing_secret: { secret: string } }>().signing_secret.secret;
    },
  };
}
