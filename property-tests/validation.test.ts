import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/http/errors.js';
import { checkResponse, responseSchemaOf } from '../src/sessions/index.js';
import { parseCreateInteraction, parsePublishInteraction } from '../src/sessions/index.js';
import {
  arbDisplayInteraction,
  arbFieldComponent,
  arbInteractiveInteraction,
  arbInvalidAnswer,
  arbValidAnswer,
} from './arbitraries/interaction.js';

/** What the route sees: the body after a JSON round trip, as fastify parses it. */
const overTheWire = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** A stored interaction as a request may send it: response_policy left out or not. */
const asRequest = fc
  .tuple(arbInteractiveInteraction(), fc.boolean())
  .map(([stored, omitPolicy]) => {
    if (!omitPolicy) return { stored, request: stored };
    const { response_policy: _omitted, ...request } = stored;
    return { stored, request };
  });

describe('valid interactions parse to their stored form', () => {
  it('interactive, on create and on publish, keys in the order sent', () => {
    fc.assert(
      fc.property(asRequest, ({ stored, request }) => {
        const body = overTheWire({ interaction: request });
        const expected = JSON.stringify(overTheWire(stored));
        expect(JSON.stringify(parseCreateInteraction(body))).toBe(expected);
        expect(JSON.stringify(parsePublishInteraction(body))).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('display, on create only', () => {
    fc.assert(
      fc.property(arbDisplayInteraction, (interaction) => {
        const body = overTheWire({ interaction });
        expect(JSON.stringify(parseCreateInteraction(body))).toBe(JSON.stringify(overTheWire(interaction)));
        expect(() => parsePublishInteraction(body)).toThrow(ApiError);
      }),
      { numRuns: 300 },
    );
  });

  it('a field is refused as soon as one of its keys is unknown', () => {
    fc.assert(
      fc.property(arbInteractiveInteraction({ maxFields: 0, maxOthers: 1 }), arbFieldComponent, (stored, field) => {
        const components = [...stored.source.components, { ...field, colour: 'red' }];
        const body = overTheWire({ interaction: { ...stored, source: { ...stored.source, components } } });
        try {
          parseCreateInteraction(body);
          expect.unreachable('an unknown key was accepted');
        } catch (error) {
          expect(error).toMatchObject({ status: 400, code: 'INVALID_SCHEMA' });
          expect((error as ApiError).message).toMatch(/^interaction\.source\.components\[\d+\]\.colour /);
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('the response schema of an interaction', () => {
  it('accepts every valid answer', () => {
    fc.assert(
      fc.property(
        arbInteractiveInteraction().chain((interaction) => fc.tuple(fc.constant(interaction), arbValidAnswer(interaction))),
        ([interaction, answer]) => {
          expect(checkResponse(responseSchemaOf(interaction), overTheWire(answer))).toEqual({ ok: true });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses every invalid answer, and says where', () => {
    fc.assert(
      fc.property(
        arbInteractiveInteraction().chain((interaction) => fc.tuple(fc.constant(interaction), arbInvalidAnswer(interaction))),
        ([interaction, invalid]) => {
          const result = checkResponse(responseSchemaOf(interaction), invalid.data);
          if (result.ok) expect.unreachable(`accepted ${invalid.fault}`);
          if (invalid.field === undefined) {
            expect(result.formErrors.length, invalid.fault).toBeGreaterThan(0);
          } else {
            expect(Object.keys(result.fieldErrors), invalid.fault).toEqual([invalid.field]);
            expect(result.formErrors).toEqual([]);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('accepts the proposed values as answers (faulting only required fields without one)', () => {
    fc.assert(
      fc.property(arbInteractiveInteraction(), (interaction) => {
        const proposed = Object.fromEntries(
          interaction.source.components.flatMap((c) => (c.type === 'field' && c.value !== undefined ? [[c.name, c.value]] : [])),
        );
        const schema = responseSchemaOf(interaction);
        const unanswered = schema.required.filter((name) => !Object.hasOwn(proposed, name));
        const result = checkResponse(schema, overTheWire(proposed));
        if (unanswered.length === 0) expect(result).toEqual({ ok: true });
        else expect(result).toEqual({ ok: false, formErrors: [], fieldErrors: Object.fromEntries(unanswered.map((name) => [name, 'Is required.'])) });
      }),
      { numRuns: 200 },
    );
  });
});
