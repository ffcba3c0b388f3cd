import { describe, expect, it } from 'vitest';
import { expectEnvelope } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { createSession, owner } from '../support/sessions.js';
import { errorCodeOf, SAME_ORIGIN } from '../human/form-post.js';

/** Input is refused, never silently changed: UTF-8 only, JSON as I-JSON, forms decoded strictly. */

const { t } = useTestApp({ config: { publicOrigin: 'http://127.0.0.1:8080' } });

const postJson = (payload: string | Buffer, contentType = 'application/json') =>
  t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t, { 'content-type': contentType }), payload });

/** A display interaction whose data is the given JSON text. */
const withData = (dataJson: string) => `{"interaction":{"mode":"display","title":"T","source":{"kind":"data","data":${dataJson}}}}`;

async function storedData(res: Awaited<ReturnType<typeof postJson>>): Promise<string> {
  expect(res.statusCode, res.body).toBe(201);
  const read = await t.app.inject({ url: `/v1/sessions/${res.json().id}`, headers: owner(t) });
  return JSON.stringify(read.json().interaction.source.data);
}

function expectRefused(res: Awaited<ReturnType<typeof postJson>>, status: number, reason: string): void {
  expectEnvelope(res, status, 'INVALID_SCHEMA');
  expect(res.json().error.reason).toBe(reason);
}

describe('JSON bodies follow I-JSON', () => {
  it('refuses a member name repeated in one object, however it is spelled', async () => {
    expectRefused(await postJson(withData('{"a":1,"a":2}')), 400, 'duplicate_member');
    expectRefused(await postJson(withData('{"a":1,"\\u0061":2}')), 400, 'duplicate_member');
    expectRefused(await postJson(`{"interaction":{"mode":"display","mode":"display","title":"T","source":{"kind":"data","data":{"a":1}}}}`), 400, 'duplicate_member');
    const res = await postJson(withData('{"rows":[{"a":1},{"a":2,"b":1,"b":2}]}'));
    expectRefused(res, 400, 'duplicate_member');
    expect(res.json().error.message).toContain('/interaction/source/data/rows/1/b');
  });

  it('refuses integers a double cannot hold exactly, and keeps those it can', async () => {
    expectRefused(await postJson(withData('{"n":123456789012345678901234567890}')), 400, 'number_precision');
    expectRefused(await postJson(withData('{"n":9007199254740993}')), 400, 'number_precision');
    expectRefused(await postJson(withData('{"n":-9007199254740992}')), 400, 'number_precision');
    expect(await storedData(await postJson(withData('{"n":9007199254740991,"m":-9007199254740991,"x":1.5e300}')))).toBe(
      '{"n":9007199254740991,"m":-9007199254740991,"x":1.5e+300}',
    );
  });

  it('refuses numbers beyond the range of a double', async () => {
    expectRefused(await postJson(withData('{"n":1e400}')), 400, 'number_range');
    expectRefused(await postJson(withData('{"n":-1e400}')), 400, 'number_range');
    expectRefused(await postJson(withData('{"n":1e-400}')), 400, 'number_range');
    expect(await storedData(await postJson(withData('{"zero":0e-400}')))).toBe('{"zero":0}');
  });

  it('keeps __proto__ and constructor as ordinary keys, and never takes them for repeats', async () => {
    const data = '{"__proto__":{"x":1},"constructor":"c","nested":{"__proto__":1,"constructor":2}}';
    expect(await storedData(await postJson(withData(data)))).toBe(data);
  });
});

describe('bodies are UTF-8', () => {
  it('refuses bytes that are not UTF-8 instead of replacing them', async () => {
    const [before, after] = withData('{"note":"#"}').split('#') as [string, string];
    for (const bytes of [[0xff, 0xfe], [0xed, 0xa0, 0x80], [0xc3]]) {
      expectRefused(await postJson(Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)])), 400, 'invalid_encoding');
    }
  });

  it('refuses a declared charset other than UTF-8 with 415, and accepts UTF-8 declared', async () => {
    const text = withData('{"a":"é"}');
    expectRefused(await postJson(Buffer.from(`\ufeff${text}`, 'utf16le'), 'application/json; charset=utf-16'), 415, 'unsupported_charset');
    expectRefused(await postJson(Buffer.from(text, 'latin1'), 'application/json; charset=ISO-8859-1'), 415, 'unsupported_charset');
    expect(await storedData(await postJson(text, 'application/json; charset=UTF-8'))).toBe('{"a":"é"}');
  });
});

describe('the human form', () => {
  const post = (token: string, body: string | Buffer, contentType = 'application/x-www-form-urlencoded') =>
    t.app.inject({ method: 'POST', url: `/s/${token}`, headers: { ...SAME_ORIGIN, 'content-type': contentType }, payload: body });
  const answer = (reason: string) => `client_event_id=cev_0000000000000001&surface_revision=1&action_id=approve&data.amount=5&data.reason=${reason}`;

  async function responses(id: string): Promise<unknown[]> {
    return (await t.app.inject({ url: `/v1/sessions/${id}`, headers: owner(t) })).json().responses;
  }

  it('refuses a value whose % escapes are not UTF-8 (an encoded surrogate, FF FE), and records nothing', async () => {
    const session = await createSession(t);
    for (const reason of ['%ED%A0%80', '%FF%FE', 'ok%', 'ok%zz']) {
      const res = await post(session.token, answer(reason));
      expect(res.statusCode, reason).toBe(400);
      expect(errorCodeOf(res.body)).toBe('INVALID_SCHEMA');
    }
    expect(await responses(session.id)).toEqual([]);
  });

  it('refuses raw bytes that are not UTF-8, and a declared charset other than UTF-8', async () => {
    const session = await createSession(t);
    const res = await post(session.token, Buffer.concat([Buffer.from(answer('x')), Buffer.from([0xc3, 0x28])]));
    expect(res.statusCode).toBe(400);
    expect(errorCodeOf(res.body)).toBe('INVALID_SCHEMA');
    const latin1 = await post(session.token, answer('%E9'), 'application/x-www-form-urlencoded; charset=iso-8859-1');
    expect(latin1.statusCode).toBe(415);
    expect(errorCodeOf(latin1.body)).toBe('INVALID_SCHEMA');
    expect(await responses(session.id)).toEqual([]);
  });

  it('takes UTF-8 values as sent', async () => {
    const session = await createSession(t);
    const res = await post(session.token, answer('%F0%9F%98%80+caf%C3%A9'));
    expect(res.statusCode, res.body).toBe(200);
    expect(await responses(session.id)).toMatchObject([{ data: { amount: 5, reason: '😀 café' } }]);
  });
});
