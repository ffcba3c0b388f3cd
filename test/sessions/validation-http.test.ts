import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../src/http/errors.js';
import type { InteractiveInteraction } from '../../src/sessions/interaction.js';
import { responseSchemaOf } from '../../src/sessions/responseSchema.js';
import { expectError } from '../support/envelope.js';
import { useTestApp } from '../support/lifecycle.js';
import { owner } from '../support/sessions.js';
import { chars, display, interactive, measuring, surface, withField } from './validationFixtures.js';

/** The validation rules reach callers through the real routes: status, code, a message naming the path. */

const { t } = useTestApp();

const post = (payload: unknown) => t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t), payload: payload as object });
const create = (interaction: unknown) => post({ interaction });

async function created(interaction: unknown): Promise<{ id: string; etag: string }> {
  const res = await create(interaction);
  expect(res.statusCode, res.body).toBe(201);
  return { id: res.json().id, etag: res.headers.etag as string };
}

/** The error envelope, its message starting with the path of what was refused. */
function expectRefusal(res: Awaited<ReturnType<typeof post>>, status: number, code: ErrorCode, path?: string): void {
  expectError(res, status, code);
  const { message } = res.json().error;
  if (path !== undefined) expect(message.startsWith(`${path} `), message).toBe(true);
}

describe('POST /v1/sessions', () => {
  it('stores the interaction as sent, response_policy filled in, and derives its response schema', async () => {
    const sent = withField({ schema: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } }, required: true });
    const { id } = await created(sent);
    const res = await t.app.inject({ method: 'GET', url: `/v1/sessions/${id}`, headers: owner(t) });
    const body = res.json();
    expect(body.interaction).toEqual({ ...sent, response_policy: 'first' });
    expect(body.response_schema).toEqual(responseSchemaOf(body.interaction as InteractiveInteraction));
    expect(body.response_schema.properties.answer.uniqueItems).toBe(true);
  });

  it('title: 200 characters pass, 201 are 400 INVALID_SCHEMA naming interaction.title', async () => {
    await created(interactive({ title: chars(200, '😀') }));
    expectRefusal(await create(interactive({ title: chars(201) })), 400, 'INVALID_SCHEMA', 'interaction.title');
  });

  it('components: 100 pass, 101 are refused', async () => {
    const texts = (count: number) => Array.from({ length: count }, (_, i) => ({ type: 'text', text: `t${i}` }));
    await created(surface(...texts(100)));
    expectRefusal(await create(surface(...texts(101))), 400, 'INVALID_SCHEMA', 'interaction.source.components');
  });

  it('actions: 5 pass, 6 are refused; a repeated id is refused', async () => {
    const actions = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `a${i}`, label: `A${i}` }));
    await created(interactive({ actions: actions(5) }));
    expectRefusal(await create(interactive({ actions: actions(6) })), 400, 'INVALID_SCHEMA', 'interaction.actions');
    expectRefusal(await create(interactive({ actions: [...actions(2), actions(1)[0]] })), 400, 'INVALID_SCHEMA', 'interaction.actions[2].id');
  });

  it('an unknown component type is 400 UNKNOWN_COMPONENT, a keyword outside the subset 400 INVALID_SCHEMA', async () => {
    expectRefusal(await create(surface({ type: 'heading' }, { type: 'iframe', src: 'x' })), 400, 'UNKNOWN_COMPONENT', 'interaction.source.components[1].type');
    expectRefusal(
      await create(withField({ schema: { type: 'string', pattern: '^x' } })),
      400,
      'INVALID_SCHEMA',
      'interaction.source.components[0].schema.pattern:',
    );
  });

  it('display data: 100 table rows pass, 101 are refused', async () => {
    const rows = (count: number) => Array.from({ length: count }, (_, i) => ({ n: i }));
    await created(display({ rows: rows(100) }));
    expectRefusal(await create(display({ rows: rows(101) })), 400, 'INVALID_SCHEMA', 'interaction.source.data.rows');
  });

  it('a Surface measuring 131072 bytes is stored; 131073 bytes are 413 PAYLOAD_TOO_LARGE', async () => {
    const { id } = await created(measuring(131072));
    const res = await t.app.inject({ method: 'GET', url: `/v1/sessions/${id}`, headers: owner(t) });
    expect(res.json().interaction).toEqual(measuring(131072));
    expectRefusal(await create(measuring(131073)), 413, 'PAYLOAD_TOO_LARGE', 'interaction');
  });

  it('refuses a body with anything beside interaction, and prototype keys', async () => {
    expectRefusal(await post({ interaction: interactive(), extra: 1 }), 400, 'INVALID_SCHEMA');
    const poisoned = await t.app.inject({
      method: 'POST',
      url: '/v1/sessions',
      headers: owner(t, { 'content-type': 'application/json' }),
      payload: `{"interaction":${JSON.stringify(interactive())},"__proto__":{"admin":true}}`,
    });
    expectRefusal(poisoned, 400, 'INVALID_SCHEMA');
  });
});

describe('PATCH /v1/sessions/{id}', () => {
  const patch = (id: string, etag: string, interaction: unknown) =>
    t.app.inject({ method: 'PATCH', url: `/v1/sessions/${id}`, headers: owner(t, { 'if-match': etag }), payload: { interaction } as object });

  it('takes the interactive shape only, with the same rules and codes', async () => {
    const { id, etag } = await created(interactive());
    expectRefusal(await patch(id, etag, display()), 400, 'INVALID_SCHEMA', 'interaction.mode');
    expectRefusal(await patch(id, etag, surface({ type: 'video' })), 400, 'UNKNOWN_COMPONENT', 'interaction.source.components[0].type');
    expectRefusal(await patch(id, etag, measuring(131073)), 413, 'PAYLOAD_TOO_LARGE', 'interaction');
    const ok = await patch(id, etag, withField({ value: 'draft', multiline: true }));
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().interaction).toEqual({ ...withField({ value: 'draft', multiline: true }), response_policy: 'first' });
  });
});
