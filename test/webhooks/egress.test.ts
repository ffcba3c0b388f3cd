import { beforeAll, describe, expect, it } from 'vitest';
import { postWebhook } from '../../src/webhooks/attempt.js';
import { createEgress } from '../../src/webhooks/egress.js';
import { MAX_RESPONSE_BYTES } from '../../src/webhooks/retryPolicy.js';
import { RECEIVER_HOSTNAME, answer } from '../support/https-receiver.js';
import { NON_PUBLIC_HOSTS, useReceiver } from './support.js';

/** One HTTP attempt through the egress, against a real HTTPS receiver on loopback. */

const receiver = useReceiver();

const webhook = (url: string) => ({ url, headers: { 'webhook-id': 'evt_test' }, body: '{"type":"response.accepted"}', maxBytes: MAX_RESPONSE_BYTES });

describe('the default policy at connect time', () => {
  const egress = createEgress({ policy: 'public' });

  it.each(NON_PUBLIC_HOSTS)('refuses https://%s/ before connecting', async (host) => {
    expect(await postWebhook(egress, webhook(`https://${host}/hook`))).toEqual({ kind: 'failure', outcome: 'egress_refused' });
  });

  it('refuses a host name that resolves to a private address', async () => {
    const resolving = createEgress({ policy: 'public', resolve: async () => ['10.1.2.3'] });
    expect(await postWebhook(resolving, webhook('https://hooks.example.com/hook'))).toEqual({ kind: 'failure', outcome: 'egress_refused' });
  });

  it('refuses the loopback receiver itself: the test policy is what lets the other tests through', async () => {
    expect(await postWebhook(egress, webhook(receiver.url))).toEqual({ kind: 'failure', outcome: 'egress_refused' });
    expect(receiver.requests).toHaveLength(0);
  });

  it('reports a name that does not resolve as dns', async () => {
    const failing = createEgress({ policy: 'public', resolve: async () => Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' })) });
    expect(await postWebhook(failing, webhook('https://missing.example.com/hook'))).toEqual({ kind: 'failure', outcome: 'dns' });
  });
});

describe('the loopback test policy', () => {
  // Made once the test authority is trusted (beforeAll), as the service makes it at first use.
  let egress: ReturnType<typeof createEgress>;
  beforeAll(() => {
    egress = createEgress({ policy: 'loopback' });
  });

  it('delivers to the receiver', async () => {
    expect(await postWebhook(egress, webhook(receiver.url))).toMatchObject({ kind: 'response', status: 200, truncated: false });
    expect(receiver.requests).toHaveLength(1);
  });

  it('resolves the name again for every connection: a name rebound to a private address is refused', async () => {
    const answers = [['127.0.0.1'], ['10.0.0.1']];
    const rebinding = createEgress({ policy: 'loopback', resolve: async () => answers.shift() ?? [] });
    receiver.respond(answer(200, '{}', { connection: 'close' }));
    const url = `https://${RECEIVER_HOSTNAME}:${receiver.port}/hook`;
    expect(await postWebhook(rebinding, webhook(url))).toMatchObject({ kind: 'response', status: 200 });
    expect(await postWebhook(rebinding, webhook(url))).toEqual({ kind: 'failure', outcome: 'egress_refused' });
    expect(receiver.requests).toHaveLength(1);
  });

  it('checks the certificate against the host name, not the address connected to', async () => {
    const misnamed = createEgress({ policy: 'loopback', resolve: async () => ['127.0.0.1'] });
    expect(await postWebhook(misnamed, webhook(`https://other.example.com:${receiver.port}/hook`))).toEqual({ kind: 'failure', outcome: 'connection' });
  });

  it('never sends plain http', async () => {
    expect(await postWebhook(egress, webhook(`http://127.0.0.1:${receiver.port}/hook`))).toEqual({ kind: 'failure', outcome: 'egress_refused' });
  });

  it('does not follow a redirect', async () => {
    receiver.respond(answer(302, '', { location: `${receiver.url}/elsewhere` }));
    expect(await postWebhook(egress, webhook(receiver.url))).toMatchObject({ kind: 'response', status: 302 });
    expect(receiver.requests.map((r) => r.path)).toEqual(['/hook']);
  });

  it('reads 64 KiB of a 1 MiB answer and drops the connection instead of reading on', async () => {
    let socketClosed!: Promise<void>;
    receiver.respond((_request, res, req) => {
      socketClosed = new Promise((resolve) => req.socket.once('close', () => resolve()));
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(Buffer.alloc(1024 * 1024, 'a'));
    });
    const result = await postWebhook(egress, webhook(receiver.url));
    expect(result).toMatchObject({ kind: 'response', status: 200, truncated: true });
    expect(result.kind === 'response' && result.body.length).toBe(64 * 1024);
    await socketClosed; // a kept-alive connection would stay open
  });

  it('does not count a 2xx whose connection drops mid-answer', async () => {
    receiver.respond((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setImmediate(() => res.destroy());
    });
    expect(await postWebhook(egress, webhook(receiver.url))).toEqual({ kind: 'failure', outcome: 'connection' });
  });
});
