import { describe, expect, it } from 'vitest';
import { ACTION_INTENTS } from '../../src/sessions/interaction.js';
import { surfaceMeasure } from '../../src/sessions/surfaceMeasure.js';
import { parseCreateInteraction } from '../../src/sessions/validation/interaction.js';
import { chars, create, display, expectRefused, interactive, measuring, publish, refusal, surface, withField } from './validationFixtures.js';

describe('the request body', () => {
  it.each([[null], [[]], ['interaction'], [42], [undefined]])('refuses %j as a body', (body: unknown) => {
    const error = refusal(() => parseCreateInteraction(body));
    expect(error).toMatchObject({ status: 400, code: 'INVALID_SCHEMA' });
    expect(error.message).toContain('request body');
  });

  it('refuses any property beside interaction, naming it', () => {
    const error = refusal(() => parseCreateInteraction({ interaction: interactive(), revision: 2 }));
    expect(error.code).toBe('INVALID_SCHEMA');
    expect(error.message).toContain('"revision"');
  });

  it('requires interaction, an object', () => {
    expect(refusal(() => parseCreateInteraction({})).message).toContain('"interaction"');
    expectRefused(() => create('hello'), 'INVALID_SCHEMA', 'interaction');
  });

  it('refuses values JSON.parse never makes', () => {
    expectRefused(() => create(new Map()), 'INVALID_SCHEMA', 'interaction');
    expectRefused(() => create(interactive({ title: new String('x') })), 'INVALID_SCHEMA', 'interaction.title');
    class Body {
      interaction = interactive();
    }
    expect(refusal(() => parseCreateInteraction(new Body())).code).toBe('INVALID_SCHEMA');
  });
});

describe('mode', () => {
  it('is required and display or interactive', () => {
    const { mode: _mode, ...noMode } = interactive();
    expectRefused(() => create(noMode), 'INVALID_SCHEMA', 'interaction.mode');
    expectRefused(() => create(interactive({ mode: 'form' })), 'INVALID_SCHEMA', 'interaction.mode');
  });

  it('must be interactive on publish and trial create', () => {
    expectRefused(() => publish(display()), 'INVALID_SCHEMA', 'interaction.mode');
    expect(publish(interactive()).mode).toBe('interactive');
  });

  it('decides which properties exist: no actions on a display interaction, nothing unknown on either', () => {
    expectRefused(() => create(display(undefined, { actions: [{ id: 'a', label: 'A' }] })), 'INVALID_SCHEMA', 'interaction.actions');
    expectRefused(() => create(display(undefined, { response_policy: 'first' })), 'INVALID_SCHEMA', 'interaction.response_policy');
    expectRefused(() => create(interactive({ theme: 'dark' })), 'INVALID_SCHEMA', 'interaction.theme');
  });

  it('must agree with the source kind', () => {
    expectRefused(() => create(interactive({ source: { kind: 'data', data: { a: 1 } } })), 'INVALID_SCHEMA', 'interaction.source.kind');
    expectRefused(
      () => create(display(undefined, { source: { kind: 'svc_surface', components: [{ type: 'text', text: 'x' }] } })),
      'INVALID_SCHEMA',
      'interaction.source.kind',
    );
  });
});

describe('title and description', () => {
  it('title: 1 to 200 characters, not only white space', () => {
    expect(create(interactive({ title: chars(200) })).title).toHaveLength(200);
    expectRefused(() => create(interactive({ title: chars(201) })), 'INVALID_SCHEMA', 'interaction.title');
    expectRefused(() => create(interactive({ title: '' })), 'INVALID_SCHEMA', 'interaction.title');
    expectRefused(() => create(interactive({ title: ' \t\n\u00a0\u2003' })), 'INVALID_SCHEMA', 'interaction.title');
    expectRefused(() => create(interactive({ title: 7 })), 'INVALID_SCHEMA', 'interaction.title');
    const { title: _title, ...untitled } = interactive();
    expectRefused(() => create(untitled), 'INVALID_SCHEMA', 'interaction.title');
  });

  it('counts code points, not UTF-16 units', () => {
    expect(create(interactive({ title: chars(200, '😀') })).title).toHaveLength(400);
    const error = expectRefused(() => create(interactive({ title: chars(201, '😀') })), 'INVALID_SCHEMA', 'interaction.title');
    expect(error.message).toContain('(it has 201)');
    // A combining accent is a code point of its own: "é" written as e + U+0301 counts two.
    expectRefused(() => create(interactive({ title: chars(100, 'e\u0301') + 'x' })), 'INVALID_SCHEMA', 'interaction.title');
  });

  it('description: optional, 0 to 4000 characters, never null', () => {
    expect(create(interactive({ description: '' })).description).toBe('');
    expect(create(display(undefined, { description: chars(4000) })).description).toHaveLength(4000);
    expectRefused(() => create(interactive({ description: chars(4001) })), 'INVALID_SCHEMA', 'interaction.description');
    expectRefused(() => create(interactive({ description: null })), 'INVALID_SCHEMA', 'interaction.description');
  });

  it('refuses text the store cannot hold: U+0000 and unpaired surrogates', () => {
    expectRefused(() => create(interactive({ title: 'a\u0000b' })), 'INVALID_SCHEMA', 'interaction.title');
    expectRefused(() => create(interactive({ title: 'a\ud800b' })), 'INVALID_SCHEMA', 'interaction.title');
    expectRefused(() => create(interactive({ description: '\udc00' })), 'INVALID_SCHEMA', 'interaction.description');
  });
});

describe('source', () => {
  it('is required, an object, without extra properties', () => {
    expectRefused(() => create(interactive({ source: undefined })), 'INVALID_SCHEMA', 'interaction.source');
    expectRefused(() => create(interactive({ source: [] })), 'INVALID_SCHEMA', 'interaction.source');
    expectRefused(
      () => create(interactive({ source: { kind: 'svc_surface', components: [{ type: 'text', text: 'x' }], layout: 'grid' } })),
      'INVALID_SCHEMA',
      'interaction.source.layout',
    );
    expectRefused(() => create(interactive({ source: { kind: 'svc_surface' } })), 'INVALID_SCHEMA', 'interaction.source.components');
    expectRefused(() => create(interactive({ source: { components: [] } })), 'INVALID_SCHEMA', 'interaction.source.kind');
  });
});

describe('actions', () => {
  const actions = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `a${i}`, label: `Action ${i}` }));

  it('1 to 5', () => {
    expect(create(interactive({ actions: actions(5) }))).toMatchObject({ actions: actions(5) });
    expect(create(interactive({ actions: actions(1) }))).toMatchObject({ actions: actions(1) });
    expectRefused(() => create(interactive({ actions: actions(6) })), 'INVALID_SCHEMA', 'interaction.actions');
    expectRefused(() => create(interactive({ actions: [] })), 'INVALID_SCHEMA', 'interaction.actions');
    expectRefused(() => create(interactive({ actions: undefined })), 'INVALID_SCHEMA', 'interaction.actions');
    expectRefused(() => create(interactive({ actions: { id: 'a', label: 'A' } })), 'INVALID_SCHEMA', 'interaction.actions');
  });

  it('id: the action ID pattern, 1 to 32 characters', () => {
    const withId = (id: unknown) => interactive({ actions: [{ id: 'first', label: 'First' }, { id, label: 'Second' }] });
    expect(create(withId(`a${chars(31, '_')}`))).toBeTruthy();
    expect(create(withId('b'))).toBeTruthy();
    for (const id of [`a${chars(32)}`, '', 'Approve', '1st', '_a', 'a-b', 'a b', 'é', 3]) {
      expectRefused(() => create(withId(id)), 'INVALID_SCHEMA', 'interaction.actions[1].id');
    }
  });

  it('ids are unique: a submission names its action by id', () => {
    const error = expectRefused(
      () => create(interactive({ actions: [{ id: 'ok', label: 'OK' }, { id: 'no', label: 'No' }, { id: 'ok', label: 'Also OK' }] })),
      'INVALID_SCHEMA',
      'interaction.actions[2].id',
    );
    expect(error.message).toContain('interaction.actions[0]');
  });

  it('label: 1 to 200 characters, not only white space', () => {
    const withLabel = (label: unknown) => interactive({ actions: [{ id: 'go', label }] });
    expect(create(withLabel(chars(200)))).toBeTruthy();
    expectRefused(() => create(withLabel(chars(201))), 'INVALID_SCHEMA', 'interaction.actions[0].label');
    expectRefused(() => create(withLabel('')), 'INVALID_SCHEMA', 'interaction.actions[0].label');
    expectRefused(() => create(withLabel('   ')), 'INVALID_SCHEMA', 'interaction.actions[0].label');
    expectRefused(() => create(interactive({ actions: [{ id: 'go' }] })), 'INVALID_SCHEMA', 'interaction.actions[0].label');
  });

  it('intent: optional, one of the five', () => {
    for (const intent of ACTION_INTENTS) expect(create(interactive({ actions: [{ id: 'go', label: 'Go', intent }] }))).toBeTruthy();
    expectRefused(() => create(interactive({ actions: [{ id: 'go', label: 'Go', intent: 'cancel' }] })), 'INVALID_SCHEMA', 'interaction.actions[0].intent');
    expectRefused(() => create(interactive({ actions: [{ id: 'go', label: 'Go', intent: null }] })), 'INVALID_SCHEMA', 'interaction.actions[0].intent');
  });

  it('no extra properties, and each action an object', () => {
    expectRefused(() => create(interactive({ actions: [{ id: 'go', label: 'Go', style: 'primary' }] })), 'INVALID_SCHEMA', 'interaction.actions[0].style');
    expectRefused(() => create(interactive({ actions: ['go'] })), 'INVALID_SCHEMA', 'interaction.actions[0]');
  });
});

describe('response_policy', () => {
  it('defaults to first, and first is the only value', () => {
    expect(create(interactive())).toMatchObject({ response_policy: 'first' });
    expect(publish(interactive({ response_policy: 'first' })).response_policy).toBe('first');
    for (const policy of ['all', 'last', null, ['first']]) {
      expectRefused(() => create(interactive({ response_policy: policy })), 'INVALID_SCHEMA', 'interaction.response_policy');
    }
  });
});

describe('the stored form', () => {
  it('is the interaction as sent, keys in the order sent, response_policy appended when absent', () => {
    const sent = {
      actions: [{ label: 'Go', id: 'go' }],
      source: { components: [{ text: 'Hi', type: 'heading' }], kind: 'svc_surface' },
      title: 'T',
      mode: 'interactive',
    };
    const stored = create(sent);
    expect(JSON.stringify(stored)).toBe(JSON.stringify({ ...sent, response_policy: 'first' }));
    const withPolicy = { response_policy: 'first', ...sent };
    expect(JSON.stringify(create(withPolicy))).toBe(JSON.stringify(withPolicy));
  });

  it('is a copy: changing the request afterwards does not change it', () => {
    const sent = withField({ schema: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } }, value: ['a'] });
    const stored = create(sent);
    const component = (sent.source as { components: { schema: { items: { enum: string[] } }; value: string[] }[] }).components[0]!;
    component.schema.items.enum.push('c');
    component.value.push('b');
    expect(stored).toMatchObject({ source: { components: [{ schema: { items: { enum: ['a', 'b'] } }, value: ['a'] }] } });
  });

  it('refuses holes in arrays, which JSON.parse never makes', () => {
    const components = [{ type: 'text', text: 'a' }, , { type: 'text', text: 'b' }];
    expect(1 in components).toBe(false);
    expectRefused(() => create(interactive({ source: { kind: 'svc_surface', components } })), 'INVALID_SCHEMA', 'interaction.source.components[1]');
  });

  it('keeps __proto__ and constructor as ordinary keys, never as prototypes', () => {
    const body = JSON.parse(
      '{"interaction":{"mode":"display","title":"T","source":{"kind":"data","data":{"__proto__":{"polluted":true},"constructor":"c"}}}}',
    );
    const stored = parseCreateInteraction(body);
    const data = (stored.source as { data: object }).data;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.keys(data)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(data, '__proto__')?.value).toEqual({ polluted: true });
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(stored))).toEqual(body.interaction);
  });
});

describe('check order decides the code', () => {
  const unknown = { type: 'chart', series: [1, 2] };
  const broken = { type: 'heading' };

  it('an unknown component type is UNKNOWN_COMPONENT even beside a malformed known component', () => {
    expectRefused(() => create(surface(broken, unknown)), 'UNKNOWN_COMPONENT', 'interaction.source.components[1].type');
    expectRefused(() => create(surface({ type: 'text', text: 'fine' }, unknown)), 'UNKNOWN_COMPONENT', 'interaction.source.components[1].type');
  });

  it('faults of the interaction itself (actions, title) come before component types', () => {
    expectRefused(() => create(interactive({ source: { kind: 'svc_surface', components: [unknown] }, actions: [] })), 'INVALID_SCHEMA', 'interaction.actions');
    expectRefused(() => create(interactive({ source: { kind: 'svc_surface', components: [unknown] }, title: '' })), 'INVALID_SCHEMA', 'interaction.title');
  });

  it('a type that is not a 1 to 64 character string is a shape fault, not an unknown component', () => {
    expectRefused(() => create(surface(unknown, { type: chars(65) })), 'INVALID_SCHEMA', 'interaction.source.components[1].type');
    expectRefused(() => create(surface(unknown, { text: 'no type' })), 'INVALID_SCHEMA', 'interaction.source.components[1].type');
  });

  it('the Surface measure comes last', () => {
    const huge = Array.from({ length: 100 }, () => ({ type: 'text', text: chars(4000) }));
    expect(refusal(() => create(surface(...huge))).code).toBe('PAYLOAD_TOO_LARGE');
    expect(refusal(() => create(surface(...huge.slice(1), unknown))).code).toBe('UNKNOWN_COMPONENT');
    expect(refusal(() => create(surface(...huge.slice(1), broken))).code).toBe('INVALID_SCHEMA');
  });
});

describe('the Surface measure', () => {
  it('is the UTF-8 bytes of the canonical JSON of the stored form', () => {
    const stored = create(interactive({ title: 'é😀', actions: [{ label: 'Go', id: 'go' }] }));
    const canonical =
      '{"actions":[{"id":"go","label":"Go"}],"mode":"interactive","response_policy":"first",' +
      '"source":{"components":[{"text":"Hello","type":"text"}],"kind":"svc_surface"},"title":"é😀"}';
    expect(surfaceMeasure(stored)).toBe(Buffer.byteLength(canonical));
  });

  it('131072 bytes pass; 131073 are 413 PAYLOAD_TOO_LARGE', () => {
    const largest = measuring(131072);
    expect(create(largest)).toEqual(largest);
    expect(surfaceMeasure(create(largest))).toBe(131072);
    const error = expectRefused(() => create(measuring(131073)), 'PAYLOAD_TOO_LARGE', 'interaction');
    expect(error.message).toContain('131073');
    expect(refusal(() => publish(measuring(131073))).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('applies to display interactions too', () => {
    const rows = Array.from({ length: 100 }, (_, i) => ({ row: i, note: chars(1000) }));
    const data = { a: rows, b: rows };
    expect(refusal(() => create(display(data))).code).toBe('PAYLOAD_TOO_LARGE');
    expect(create(display({ a: rows })).mode).toBe('display');
  });
});
