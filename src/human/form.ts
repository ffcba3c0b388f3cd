import { pooledRandomBytes } from '../../eventstore/index.js';
import { formEntries } from '../http/bodies.js';
import type { ApiError } from '../http/errors.js';
import { refusalError } from '../http/refusal.js';
import { own } from './own.js';
import { fieldsOf, type FieldSchema, type FieldValue, type InteractiveInteraction } from '../sessions/index.js';
import { charCount } from '../http/text.js';
import { PATTERNS } from '../sessions/index.js';
import { FORM_REFUSALS } from './refusals.js';

/**
 * The human page's form: parsing the urlencoded body, turning the person's strings into
 * typed values of the stored revision's fields, and the safe draft kept across a revision conflict.
 */

/** Field name -> the strings a form holds for it; a missing name holds nothing (empty, unchecked). */
export type FormValues = Record<string, string[]>;
export type FieldErrors = Record<string, string>;
export type TypedData = Record<string, FieldValue>;

export interface Submission {
  clientEventId: string;
  surfaceRevision: number;
  actionId: string;
  values: FormValues;
}

const CLIENT_EVENT_ID = /^[A-Za-z0-9_-]{16,64}$/;
const SURFACE_REVISION = new RegExp(PATTERNS.revision);
const ACTION_ID = new RegExp(PATTERNS.actionId);
/** `data.` and a field name: the pattern's anchors moved outside the capture. */
const DATA_FIELD = new RegExp(`^data\\.(${PATTERNS.fieldName.slice(1, -1)})$`);

/** A fresh client_event_id for each rendered form: 24 random bytes, 32 base64url characters. */
export const newClientEventId = (): string => pooledRandomBytes(24).toString('base64url');

const malformed = (problem: string): ApiError => refusalError(FORM_REFUSALS, { refused: 'form_malformed', problem });

/** Parses an application/x-www-form-urlencoded body; anything but the four kinds of field is refused. */
export function parseSubmission(body: string): Submission {
  const single = new Map<string, string>();
  const values: FormValues = {};
  for (const [name, value] of formEntries(body)) {
    const field = DATA_FIELD.exec(name)?.[1];
    if (field !== undefined) {
      const list = own(values, field);
      if (list) list.push(value);
      else values[field] = [value];
    } else if (name === 'client_event_id' || name === 'surface_revision' || name === 'action_id') {
      if (single.has(name)) throw malformed(`The form field ${name} appears more than once.`);
      single.set(name, value);
    } else {
      throw malformed('The form has a field this page does not send.');
    }
  }
  const required = (name: string, pattern: RegExp): string => {
    const value = single.get(name);
    if (value === undefined || !pattern.test(value)) throw malformed(`The form field ${name} is missing or malformed.`);
    return value;
  };
  return {
    clientEventId: required('client_event_id', CLIENT_EVENT_ID),
    surfaceRevision: Number(required('surface_revision', SURFACE_REVISION)),
    actionId: required('action_id', ACTION_ID),
    values,
  };
}

// A valid floating-point number as an HTML number input submits it.
const DECIMAL = /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/;

/** Browsers submit textarea line breaks as CRLF; the typed result uses LF. */
const normalizeText = (text: string): string => text.replace(/\r\n?/g, '\n');

type Converted = { value: FieldValue | undefined } | { error: string };

function stringValue(schema: Extract<FieldSchema, { type: 'string' }>, text: string): Converted {
  if (schema.enum && !schema.enum.includes(text)) return { error: 'Choose one of the listed options.' };
  const length = charCount(text);
  if (schema.minLength !== undefined && length < schema.minLength) return { error: `Enter at least ${schema.minLength} characters.` };
  if (schema.maxLength !== undefined && length > schema.maxLength) return { error: `Enter at most ${schema.maxLength} characters.` };
  return { value: text };
}

function numberValue(schema: Extract<FieldSchema, { type: 'number' | 'integer' }>, text: string): Converted {
  const parsed = DECIMAL.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(parsed)) return { error: schema.type === 'integer' ? 'Enter a whole number.' : 'Enter a number.' };
  // -0 and 0 are one answer; JSON cannot tell them apart anyway.
  const value = parsed === 0 ? 0 : parsed;
  if (schema.type === 'integer' && !Number.isInteger(value)) return { error: 'Enter a whole number.' };
  if (schema.minimum !== undefined && value < schema.minimum) return { error: `Enter ${schema.minimum} or more.` };
  if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) return { error: `Enter more than ${schema.exclusiveMinimum}.` };
  if (schema.maximum !== undefined && value > schema.maximum) return { error: `Enter ${schema.maximum} or less.` };
  if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) return { error: `Enter less than ${schema.exclusiveMaximum}.` };
  return { value };
}

function convertField(schema: FieldSchema, raw: string[]): Converted {
  switch (schema.type) {
    case 'boolean': {
      // A checkbox sends its value when ticked and nothing when not: unticked is false, never absent.
      if (raw.length === 0) return { value: false };
      if (raw.length === 1 && raw[0] === 'true') return { value: true };
      return { error: 'Tick the box or leave it empty.' };
    }
    case 'array': {
      if (raw.length === 0) return { value: undefined };
      if (new Set(raw).size !== raw.length) return { error: 'Choose each option at most once.' };
      if (raw.some((item) => !schema.items.enum.includes(item))) return { error: 'Choose from the listed options.' };
      if (schema.minItems !== undefined && raw.length < schema.minItems) return { error: `Choose at least ${schema.minItems}.` };
      if (schema.maxItems !== undefined && raw.length > schema.maxItems) return { error: `Choose at most ${schema.maxItems}.` };
      return { value: [...raw] };
    }
    default: {
      // A text or number input sends one string; an empty one leaves the field unset.
      if (raw.length > 1) return { error: 'Give one value.' };
      const text = raw[0];
      if (text === undefined || text === '') return { value: undefined };
      return schema.type === 'string' ? stringValue(schema, normalizeText(text)) : numberValue(schema, text);
    }
  }
}

export type Conversion =
  | { ok: true; data: TypedData }
  /** `data` holds the fields that did convert, so the revision's own checks can judge them too. */
  | { ok: false; data: TypedData; fieldErrors: FieldErrors; formErrors: string[] };

/**
 * The person's strings as the typed data of the revision's response schema, or the reasons they
 * are not (VALIDATION_FAILED). An empty optional field is left out; an unticked checkbox is false.
 */
export function convertSubmission(interaction: InteractiveInteraction, values: FormValues): Conversion {
  const fields = fieldsOf(interaction);
  const known = new Set(fields.map((field) => field.name));
  const formErrors = Object.keys(values)
    .filter((name) => !known.has(name))
    .map((name) => `This page has no field named ${name}.`);
  const data: TypedData = {};
  const fieldErrors: FieldErrors = {};
  for (const field of fields) {
    const converted = convertField(field.schema, own(values, field.name) ?? []);
    if ('error' in converted) fieldErrors[field.name] = converted.error;
    else if (converted.value !== undefined) data[field.name] = converted.value;
    else if (field.required) fieldErrors[field.name] = 'This field is required.';
  }
  if (formErrors.length > 0 || Object.keys(fieldErrors).length > 0) return { ok: false, data, fieldErrors, formErrors };
  return { ok: true, data };
}

/**
 * What survives of a person's answers when the page changed under them (SESSION_REVISION_CONFLICT):
 * each value they gave for a field the current revision still has, when it is still valid there.
 * Only values they actually sent count: an unticked box or an empty input keeps the new proposal.
 */
export function safeDraft(interaction: InteractiveInteraction, values: FormValues): TypedData {
  const draft: TypedData = {};
  for (const field of fieldsOf(interaction)) {
    const raw = (own(values, field.name) ?? []).filter((text) => text !== '');
    if (raw.length === 0) continue;
    const converted = convertField(field.schema, raw);
    if ('value' in converted && converted.value !== undefined) draft[field.name] = converted.value;
  }
  return draft;
}

/** The strings a form shows for typed values: proposed values, then the draft over them. */
export function formValuesOf(interaction: InteractiveInteraction, draft: TypedData = {}): FormValues {
  const values: FormValues = {};
  for (const field of fieldsOf(interaction)) {
    const value = own(draft, field.name) ?? field.value;
    if (value !== undefined) values[field.name] = formStrings(value);
  }
  return values;
}

/** How a form carries a typed value: an unticked box and an empty list carry nothing. */
export function formStrings(value: FieldValue): string[] {
  if (Array.isArray(value)) return [...value];
  if (typeof value === 'boolean') return value ? ['true'] : [];
  return [String(value)];
}
