import { describe, expect, it } from 'vitest';
import { isServiceError } from '../../src/client/index.js';
import { useTestApp } from '../support/lifecycle.js';
import { useGateway } from './gateway.js';
import { clientOf, listeningApp, refundQuestion } from './support.js';

/**
 * Lost creates found again through the typed client: a create with a client reference whose
 * answer never arrives is settled by looking the reference up, so the agent ends with one Session
 * and a link to it; the list and the link's reissue as the client calls them.
 */

const { t } = useTestApp(listeningApp);

const via = useGateway(t);

let unique = 0;
const reference = (what: string) => `${what}-${++unique}-${Date.now()}`;
const creates = (path = '/v1/sessions') => via.gateway.sent('POST', path);
/** Every Session of the workspace holding the reference, read from the service directly. */
const holders = async (ref: string) => (await clientOf(t).listSessions({ clientReferenceId: ref })).data.map((s) => s.id);

describe('createSession with clientReferenceId', () => {
  it('finds the Session again when the answer to its create is lost: one Session, with a link that opens it', async () => {
    const ref = reference('lost-answer');
    const before = creates().length;
    via.gateway.fail('drop_after_forward', (method, path) => method === 'POST' && path === '/v1/sessions');
    const created = await via.client.createSession(refundQuestion(), { clientReferenceId: ref });

    expect(creates().length).toBe(before + 1);
    expect(creates().at(-1)!.status).toBe(0);
    expect(await holders(ref)).toEqual([created.id]);
    expect(created).toMatchObject({ client_reference_id: ref, revision: 1 });
    // The lost answer's link was never seen: the Session's link now is the one returned.
    const page = await fetch(created.human_url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Approve the refund');
    const lookups = via.gateway.sent('GET', `/v1/sessions?limit=1&client_reference_id=${encodeURIComponent(ref)}`);
    expect(lookups.map((e) => e.status)).toEqual([200]);
    expect(creates(`/v1/sessions/${created.id}/link`).map((e) => e.status)).toEqual([200]);
    // The client goes on from the Session it found: its ETag is the reissue's.
    expect(via.client.etagOf(created.id)).toBe('"1.1"');
  });

  it('creates again when the lost create never reached the service', async () => {
    const ref = reference('never-sent');
    const before = creates().length;
    via.gateway.fail('page_before_forward', (method, path) => method === 'POST' && path === '/v1/sessions');
    const created = await via.client.createSession(refundQuestion(), { clientReferenceId: ref });
    expect(creates().slice(before).map((e) => e.status)).toEqual([502, 201]);
    expect(await holders(ref)).toEqual([created.id]);
    expect((await fetch(created.human_url)).status).toBe(200);
  });

  it('a reference held before the first try is the caller’s to settle: CLIENT_REFERENCE_IN_USE with the Session id', async () => {
    const ref = reference('held');
    const first = await via.client.createSession(refundQuestion(), { clientReferenceId: ref });
    const error = await via.client.createSession(refundQuestion(), { clientReferenceId: ref }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(isServiceError(error, 'CLIENT_REFERENCE_IN_USE')).toBe(true);
    expect(isServiceError(error) && error.details).toEqual({ session_id: first.id });
  });

  it('without a reference a lost create is still reported, never repeated', async () => {
    const before = creates().length;
    via.gateway.fail('drop_after_forward', (method, path) => method === 'POST' && path === '/v1/sessions');
    await expect(via.client.createSession(refundQuestion())).rejects.toMatchObject({ code: 'OUTCOME_UNKNOWN' });
    expect(creates().length).toBe(before + 1);
  });
});

describe('listSessions and reissueLink', () => {
  it('lists newest first page by page, and finds a Session by its reference', async () => {
    const a = await via.client.createSession(refundQuestion('First listed'), { clientReferenceId: reference('list') });
    const b = await via.client.createSession(refundQuestion('Second listed'));
    const page = await via.client.listSessions({ limit: 1 });
    expect(page.data.map((s) => s.id)).toEqual([b.id]);
    const next = await via.client.listSessions({ limit: 1, after: page.next_cursor });
    expect(next.data.map((s) => s.id)).toEqual([a.id]);
    expect((await via.client.listSessions({ clientReferenceId: a.client_reference_id! })).data).toEqual([expect.objectContaining({ id: a.id, title: 'First listed', status: 'active' })]);
  });

  it('reissues the link: the old one opens nothing, the new one opens the Session; a publish goes on from the new ETag', async () => {
    const created = await via.client.createSession(refundQuestion());
    const reissued = await via.client.reissueLink(created.id);
    expect(reissued.human_url).not.toBe(created.human_url);
    expect((await fetch(created.human_url)).status).toBe(404);
    expect((await fetch(reissued.human_url)).status).toBe(200);
    expect((await via.client.publish(created.id, refundQuestion('After the new link'))).revision).toBe(2);
  });
});
