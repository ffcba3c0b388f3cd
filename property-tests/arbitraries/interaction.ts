import fc from 'fast-check';
import {
  ACTION_INTENTS,
  fieldsOf,
  type Action,
  type Component,
  type DisplayInteraction,
  type DisplayValue,
  type FieldComponent,
  type FieldSchema,
  type FieldValue,
  type InteractiveInteraction,
  type Scalar,
  type ScalarRecord,
} from '../../src/sessions/index.js';

/**
 * Generators of valid interactions (in their stored form, response_policy included) and of valid and
 * invalid answers to them, for properties of validation, the human page and submission. Sizes stay
 * small (a few components, short texts) so a run is quick; bounds are tested one by one elsewhere.
 *
 * Keys that are traps for careless object code (`__proto__`, `constructor`) appear now and then as
 * display keys, record keys and enum values. Objects are built with Object.fromEntries only.
 */

/** One code point: mostly printable ASCII, sometimes anything storable (no U+0000, no lone surrogate). */
const codePoint = fc
  .oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.constantFrom(0x09, 0x0a, 0xa0, 0xe9, 0x2028, 0x4e2d, 0x1f600) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 0x10ffff }).filter((cp) => cp < 0xd800 || cp > 0xdfff) },
  )
  .map((cp) => String.fromCodePoint(cp));

const visible = fc.constantFrom('a', 'Z', '7', 'é', '中', '😀', '<', '"');

/** Text of min..max code points. */
const arbText = (min: number, max: number): fc.Arbitrary<string> =>
  fc.string({ unit: codePoint, minLength: min, maxLength: max });

/** Text of 1..max code points with at least one that is not white space. */
const arbNonBlank = (max: number): fc.Arbitrary<string> =>
  fc.tuple(arbText(0, max - 1), visible, fc.nat()).map(([text, mark, at]) => {
    const points = [...text];
    points.splice(at % (points.length + 1), 0, mark);
    return points.join('');
  });

const trapKey = fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty');
const arbKey = fc.oneof({ weight: 5, arbitrary: arbText(0, 12) }, { weight: 1, arbitrary: trapKey });
const arbOption = fc.oneof({ weight: 5, arbitrary: arbText(1, 10) }, { weight: 1, arbitrary: trapKey });

const arbActionId = fc.stringMatching(/^[a-z][a-z0-9_]{0,31}$/);
/** Field names, now and then `constructor`: a valid name that plain objects already inherit. */
const arbFieldName = fc.oneof({ weight: 9, arbitrary: fc.stringMatching(/^[a-z][a-z0-9_]{0,63}$/) }, { weight: 1, arbitrary: fc.constant('constructor') });

function objectOf<T>(key: fc.Arbitrary<string>, value: fc.Arbitrary<T>, min: number, max: number): fc.Arbitrary<{ [key: string]: T }> {
  return fc
    .uniqueArray(fc.tuple(key, value), { selector: ([k]) => k, minLength: min, maxLength: max })
    .map((entries) => Object.fromEntries(entries));
}

/** Optional properties: each present or absent, in the order given. */
function withOptional<T extends object>(base: T, optional: { [key: string]: fc.Arbitrary<unknown> }): fc.Arbitrary<T> {
  const present = Object.entries(optional).map(([key, arb]) => fc.option(arb.map((value) => [key, value] as const), { nil: undefined }));
  return fc.tuple(...present).map((entries) => ({ ...base, ...Object.fromEntries(entries.filter((e) => e !== undefined)) }) as T);
}

const arbScalar: fc.Arbitrary<Scalar> = fc.oneof(
  arbText(0, 20),
  fc.integer(),
  // An integer beyond ±(2^53 - 1) is refused (number_precision): a double cannot hold it exactly.
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Number.isInteger(x) || Number.isSafeInteger(x)),
  fc.boolean(),
  fc.constant(null),
);

const arbScalarRecord = (min: number, max: number): fc.Arbitrary<ScalarRecord> => objectOf(arbKey, arbScalar, min, max);

const arbTable: fc.Arbitrary<ScalarRecord[]> = fc
  .uniqueArray(arbKey, { minLength: 1, maxLength: 4 })
  .chain((columns) =>
    fc.array(fc.array(arbScalar, { minLength: columns.length, maxLength: columns.length }).map((cells) => Object.fromEntries(columns.map((c, i) => [c, cells[i]!]))), {
      minLength: 1,
      maxLength: 5,
    }),
  );

export const arbDisplayInteraction: fc.Arbitrary<DisplayInteraction> = fc
  .tuple(arbNonBlank(200), objectOf(arbKey, fc.oneof<fc.Arbitrary<DisplayValue>[]>(arbScalar, arbScalarRecord(1, 4), arbTable), 1, 5))
  .chain(([title, data]) =>
    withOptional({ mode: 'display' as const, title, source: { kind: 'data' as const, data } }, { description: arbText(0, 4000) }),
  );

// Field schemas: bounds are generated consistent, so every schema admits at least one answer.

const annotations = { title: arbText(0, 20), description: arbText(0, 40) };

const arbEnum = fc.uniqueArray(arbOption, { minLength: 1, maxLength: 6 });

const arbStringSchema: fc.Arbitrary<FieldSchema> = fc.oneof(
  fc
    .tuple(fc.nat({ max: 10 }), fc.nat({ max: 20 }))
    .chain(([min, extra]) => withOptional({ type: 'string' as const }, { ...annotations, minLength: fc.constant(min), maxLength: fc.constant(min + extra) })),
  arbEnum.chain((options) => withOptional({ type: 'string' as const, enum: options }, annotations)),
);

const arbNumberSchema: fc.Arbitrary<FieldSchema> = fc
  .tuple(fc.constantFrom('number' as const, 'integer' as const), fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 2, max: 1000 }), fc.boolean())
  .chain(([type, low, width, half]) => {
    // Half-integer bounds on an integer field are legal JSON Schema and worth exercising.
    const lower = half ? low + 0.5 : low;
    const upper = lower + width;
    return fc
      .tuple(fc.constantFrom('none', 'minimum', 'exclusiveMinimum'), fc.constantFrom('none', 'maximum', 'exclusiveMaximum'))
      .chain(([lowKey, highKey]) =>
        withOptional(
          {
            type,
            ...(lowKey === 'none' ? {} : { [lowKey]: lower }),
            ...(highKey === 'none' ? {} : { [highKey]: upper }),
          } as FieldSchema,
          annotations,
        ),
      );
  });

const arbArraySchema: fc.Arbitrary<FieldSchema> = fc
  .tuple(arbEnum, fc.nat(), fc.nat())
  .chain(([options, a, b]) => {
    const minItems = a % (options.length + 1);
    const maxItems = minItems + (b % (options.length - minItems + 1));
    return withOptional(
      { type: 'array' as const, items: { type: 'string' as const, enum: options } },
      { ...annotations, minItems: fc.constant(minItems), maxItems: fc.constant(maxItems), uniqueItems: fc.constant(true as const) },
    );
  });

const arbFieldSchema: fc.Arbitrary<FieldSchema> = fc.oneof(
  arbStringSchema,
  arbNumberSchema,
  fc.constant<FieldSchema>({ type: 'boolean' }),
  arbArraySchema,
);

/** The closed interval of integers a numeric schema admits, clipped to ±10^6 when unbounded. */
function integerRange(schema: FieldSchema & { type: 'number' | 'integer' }): [number, number] {
  const low = Math.max(
    schema.minimum === undefined ? -1e6 : Math.ceil(schema.minimum),
    schema.exclusiveMinimum === undefined ? -1e6 : Math.floor(schema.exclusiveMinimum) + 1,
  );
  const high = Math.min(
    schema.maximum === undefined ? 1e6 : Math.floor(schema.maximum),
    schema.exclusiveMaximum === undefined ? 1e6 : Math.ceil(schema.exclusiveMaximum) - 1,
  );
  return [low, high];
}

/** A value valid against a field schema. */
function arbFieldValue(schema: FieldSchema): fc.Arbitrary<FieldValue> {
  switch (schema.type) {
    case 'string': {
      if (schema.enum) return fc.constantFrom(...schema.enum);
      const min = schema.minLength ?? 0;
      return arbText(min, Math.min(schema.maxLength ?? min + 20, min + 20));
    }
    case 'integer': {
      const [min, max] = integerRange(schema);
      return fc.integer({ min, max });
    }
    case 'number': {
      const [min, max] = integerRange(schema);
      const lower = Math.max(schema.minimum ?? -1e6, schema.exclusiveMinimum ?? -1e6);
      const upper = Math.min(schema.maximum ?? 1e6, schema.exclusiveMaximum ?? 1e6);
      const fraction = fc.double({
        min: lower,
        max: upper,
        minExcluded: schema.exclusiveMinimum !== undefined && schema.exclusiveMinimum >= (schema.minimum ?? -Infinity),
        maxExcluded: schema.exclusiveMaximum !== undefined && schema.exclusiveMaximum <= (schema.maximum ?? Infinity),
        noNaN: true,
      });
      return fc.oneof(fc.integer({ min, max }), fraction);
    }
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.shuffledSubarray(schema.items.enum, { minLength: schema.minItems ?? 0, maxLength: schema.maxItems ?? schema.items.enum.length });
  }
}

const isFreeText = (schema: FieldSchema): boolean => schema.type === 'string' && schema.enum === undefined;
const optionsOf = (schema: FieldSchema): string[] | undefined =>
  schema.type === 'string' ? schema.enum : schema.type === 'array' ? schema.items.enum : undefined;

export const arbFieldComponent: fc.Arbitrary<FieldComponent> = fc
  .tuple(arbFieldSchema, arbFieldName, arbText(1, 200))
  .chain(([schema, name, label]) => {
    const options = optionsOf(schema);
    return withOptional(
      { type: 'field' as const, name, label, schema } as FieldComponent,
      {
        description: arbText(0, 1000),
        required: fc.boolean(),
        ...(isFreeText(schema) && { multiline: fc.boolean() }),
        ...(options && {
          option_labels: fc
            .subarray(options)
            .chain((chosen) => fc.tuple(...chosen.map(() => arbText(1, 200))).map((labels) => Object.fromEntries(chosen.map((o, i) => [o, labels[i]])))),
        }),
        value: arbFieldValue(schema),
      },
    );
  });

const arbOtherComponent: fc.Arbitrary<Component> = fc.oneof(
  arbNonBlank(200).map((text) => ({ type: 'heading' as const, text })),
  arbText(1, 4000).map((text) => ({ type: 'text' as const, text })),
  arbScalarRecord(1, 6).chain((fields) => withOptional({ type: 'record' as const, fields }, { label: arbNonBlank(200) })),
);

const arbAction: fc.Arbitrary<Action> = fc
  .tuple(arbActionId, arbNonBlank(200))
  .chain(([id, label]) => withOptional<Action>({ id, label }, { intent: fc.constantFrom(...ACTION_INTENTS) }));

export interface InteractionSizes {
  /** Field components at most (default 4). */
  maxFields?: number;
  /** Heading, text and record components at most (default 3). */
  maxOthers?: number;
}

/** A valid interactive interaction in its stored form (response_policy present). */
export function arbInteractiveInteraction(sizes: InteractionSizes = {}): fc.Arbitrary<InteractiveInteraction> {
  const { maxFields = 4, maxOthers = 3 } = sizes;
  return fc
    .tuple(fc.uniqueArray(arbFieldComponent, { selector: (f) => f.name, maxLength: maxFields }), fc.array(arbOtherComponent, { maxLength: maxOthers }))
    .filter(([fields, others]) => fields.length + others.length > 0)
    .chain(([fields, others]) => {
      const all = [...fields, ...others];
      return fc.tuple(
        fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length }),
        arbNonBlank(200),
        fc.option(arbText(0, 4000), { nil: undefined }),
        fc.uniqueArray(arbAction, { selector: (a) => a.id, minLength: 1, maxLength: 5 }),
      );
    })
    .map(([components, title, description, actions]) => ({
      mode: 'interactive' as const,
      title,
      ...(description !== undefined && { description }),
      source: { kind: 'svc_surface' as const, components },
      actions,
      response_policy: 'first' as const,
    }));
}

/** An answer the interaction's response schema accepts: every required field, some optional ones. */
export function arbValidAnswer(interaction: InteractiveInteraction): fc.Arbitrary<{ [field: string]: FieldValue }> {
  const fields = fieldsOf(interaction);
  return fc
    .tuple(...fields.map((field) => (field.required ? arbFieldValue(field.schema) : fc.option(arbFieldValue(field.schema), { nil: undefined }))))
    .map((values) => Object.fromEntries(fields.map((field, i) => [field.name, values[i]]).filter(([, value]) => value !== undefined)));
}

/**
 * An answer with exactly one fault, and where it must be reported: `field` when the fault belongs to
 * one field (its fieldErrors entry), absent when it belongs to the answer as a whole (formErrors).
 */
export interface InvalidAnswer {
  data: unknown;
  field?: string;
  fault: string;
}

/** Values that break a field's schema, each with the fault it shows. */
function faultsOf(schema: FieldSchema): [unknown, string][] {
  const outside = (options: string[]): string => {
    let candidate = 'not an option';
    while (options.includes(candidate)) candidate += '!';
    return candidate;
  };
  switch (schema.type) {
    case 'string':
      return [
        [42, 'a number for text'],
        ...(schema.enum ? [[outside(schema.enum), 'not an enum value'] as [string, string]] : [['a\u0000b', 'an unstorable character'] as [string, string]]),
        ...(schema.maxLength !== undefined && schema.maxLength < 10_000 ? [['x'.repeat(schema.maxLength + 1), 'too long'] as [string, string]] : []),
        ...(schema.minLength ? [['x'.repeat(schema.minLength - 1), 'too short'] as [string, string]] : []),
      ];
    case 'number':
    case 'integer':
      return [
        ['7', 'text for a number'],
        ...(schema.type === 'integer' ? [[integerRange(schema)[0] + 0.5, 'a fraction'] as [number, string]] : []),
        ...(schema.minimum !== undefined ? [[schema.minimum - 1, 'below minimum'] as [number, string]] : []),
        ...(schema.exclusiveMinimum !== undefined ? [[schema.exclusiveMinimum, 'at exclusiveMinimum'] as [number, string]] : []),
        ...(schema.maximum !== undefined ? [[schema.maximum + 1, 'above maximum'] as [number, string]] : []),
        ...(schema.exclusiveMaximum !== undefined ? [[schema.exclusiveMaximum, 'at exclusiveMaximum'] as [number, string]] : []),
      ];
    case 'boolean':
      return [['true', 'text for a boolean']];
    case 'array': {
      const options = schema.items.enum;
      return [
        ['x', 'text for a list'],
        [[outside(options)], 'an item outside the enum'],
        [[options[0], options[0]], 'a repeated item'],
        ...(schema.minItems ? [[options.slice(0, schema.minItems - 1), 'too few items'] as [string[], string]] : []),
        ...(schema.maxItems !== undefined && schema.maxItems < options.length ? [[options.slice(0, schema.maxItems + 1), 'too many items'] as [string[], string]] : []),
      ];
    }
  }
}

export function arbInvalidAnswer(interaction: InteractiveInteraction): fc.Arbitrary<InvalidAnswer> {
  const fields = fieldsOf(interaction);
  const valid = arbValidAnswer(interaction);
  const without = (answer: object, name: string): object => Object.fromEntries(Object.entries(answer).filter(([key]) => key !== name));
  const faults: fc.Arbitrary<InvalidAnswer>[] = [
    fc.constantFrom<unknown>(null, [], 'answer', 1).map((data) => ({ data, fault: 'not an object' })),
    // Upper case never matches the field-name pattern, so this is never a declared field.
    valid.map((answer) => ({ data: { ...answer, Extra: 'x' }, fault: 'a property that is no field' })),
    ...fields
      .filter((field) => field.required)
      .map((field) => valid.map((answer) => ({ data: without(answer, field.name), field: field.name, fault: 'a required field missing' }))),
    ...fields.flatMap((field) =>
      faultsOf(field.schema).map(([value, fault]) =>
        valid.map((answer) => ({ data: { ...without(answer, field.name), [field.name]: value }, field: field.name, fault })),
      ),
    ),
  ];
  return fc.oneof(...faults);
}
