/**
 * What a person sees, as stored and returned. Values of these types have passed the request
 * schemas (requestSchemas.ts) and rules.ts; every other module may rely on their rules without checking
 * again.
 */

export type Scalar = string | number | boolean | null;
export type ScalarRecord = { [key: string]: Scalar };

/** A display property: a scalar, a key/value object, or a table (rows with one key set). */
export type DisplayValue = Scalar | ScalarRecord | ScalarRecord[];

export interface DisplayInteraction {
  mode: 'display';
  title: string;
  description?: string;
  source: { kind: 'data'; data: { [key: string]: DisplayValue } };
}

/** The JSON Schema subset a field may use. */
export type FieldSchema =
  | { type: 'string'; minLength?: number; maxLength?: number; enum?: string[]; title?: string; description?: string }
  | {
      type: 'number' | 'integer';
      minimum?: number;
      maximum?: number;
      exclusiveMinimum?: number;
      exclusiveMaximum?: number;
      title?: string;
      description?: string;
    }
  | { type: 'boolean'; title?: string; description?: string }
  | {
      type: 'array';
      items: { type: 'string'; enum: string[]; title?: string; description?: string };
      minItems?: number;
      maxItems?: number;
      /** Optional in a field schema; the response schema always carries it. */
      uniqueItems?: true;
      title?: string;
      description?: string;
    };

export type FieldValue = string | number | boolean | string[];

export interface HeadingComponent {
  type: 'heading';
  text: string;
}

export interface TextComponent {
  type: 'text';
  text: string;
}

export interface RecordComponent {
  type: 'record';
  fields: ScalarRecord;
  label?: string;
}

export interface FieldComponent {
  type: 'field';
  name: string;
  label: string;
  schema: FieldSchema;
  description?: string;
  required?: boolean;
  multiline?: boolean;
  option_labels?: { [value: string]: string };
  /** A proposed value shown to the person; valid against schema. */
  value?: FieldValue;
}

export type Component = HeadingComponent | TextComponent | RecordComponent | FieldComponent;

export const ACTION_INTENTS = ['submit', 'continue', 'approve', 'reject', 'request_change'] as const;

export interface Action {
  id: string;
  label: string;
  intent?: (typeof ACTION_INTENTS)[number];
}

export interface InteractiveInteraction {
  mode: 'interactive';
  title: string;
  description?: string;
  source: { kind: 'svc_surface'; components: Component[] };
  actions: Action[];
  /** Always present once stored: `first` is the default and the only policy. */
  response_policy: 'first';
}

export type Interaction = DisplayInteraction | InteractiveInteraction;

/** The JSON Schema 2020-12 a revision's responses are validated against. */
export interface ResponseSchema {
  $schema: 'https://json-schema.org/draft/2020-12/schema';
  type: 'object';
  properties: { [field: string]: FieldSchema };
  required: string[];
  additionalProperties: false;
}

export function fieldsOf(interaction: InteractiveInteraction): FieldComponent[] {
  return interaction.source.components.filter((c): c is FieldComponent => c.type === 'field');
}
