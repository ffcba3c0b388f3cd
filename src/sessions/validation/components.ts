import { ApiError, invalid } from '../../http/errors.js';
import type { Component } from '../interaction.js';
import { fieldComponent } from './field.js';
import { COMPONENT_TYPE_MAX, COMPONENTS_MAX, LABEL_MAX, RECORD_FIELDS_MAX, TEXT_MAX } from './limits.js';
import { array, child, inOrderOf, object, onlyKeys, requireKey, scalarRecord, text, type JsonObject } from './read.js';

/**
 * Surface components, in the three steps SPEC 2.2 and 2.3 imply: the list and each item's `type`
 * (shape, 400 INVALID_SCHEMA), then the types themselves (400 UNKNOWN_COMPONENT, before any
 * component's own fields are read, so an unknown type is named as such even beside a malformed
 * known one), then each known component's fields (400 INVALID_SCHEMA).
 */

const KNOWN_TYPES = ['heading', 'text', 'record', 'field'];

/** Step 1: 1 to 100 objects, each with a `type` string of 1 to 64 characters. */
export function componentList(value: unknown, path: string): JsonObject[] {
  const items = array(value, path);
  if (items.length < 1 || items.length > COMPONENTS_MAX) {
    throw invalid(`${path} must have 1 to ${COMPONENTS_MAX} components (it has ${items.length}).`);
  }
  return items.map((item, index) => {
    const at = child(path, index);
    const component = object(item, at);
    text(requireKey(component, 'type', at), child(at, 'type'), { min: 1, max: COMPONENT_TYPE_MAX });
    return component;
  });
}

/** Step 2: the first component whose type is not one the service renders. */
export function refuseUnknownTypes(components: JsonObject[], path: string): void {
  components.forEach((component, index) => {
    if (!KNOWN_TYPES.includes(component.type as string)) {
      throw new ApiError(
        400,
        'UNKNOWN_COMPONENT',
        `${child(child(path, index), 'type')} is ${JSON.stringify(component.type)}, which is not a component type (heading, text, record, field).`,
      );
    }
  });
}

/** Step 3: every component's own fields; field names are unique across the Surface. */
export function surfaceComponents(components: JsonObject[], path: string): Component[] {
  const fieldAt = new Map<string, string>();
  return components.map((raw, index) => {
    const at = child(path, index);
    const component = componentOf(raw, at);
    if (component.type === 'field') {
      const first = fieldAt.get(component.name);
      if (first !== undefined) throw invalid(`${at}.name repeats the field name "${component.name}" of ${first}.`);
      fieldAt.set(component.name, at);
    }
    return component;
  });
}

function componentOf(raw: JsonObject, path: string): Component {
  switch (raw.type) {
    case 'heading':
      onlyKeys(raw, path, ['type', 'text'], 'a heading component');
      return inOrderOf(raw, {
        type: 'heading',
        text: text(requireKey(raw, 'text', path), child(path, 'text'), { min: 1, max: LABEL_MAX, nonBlank: true }),
      });
    case 'text':
      onlyKeys(raw, path, ['type', 'text'], 'a text component');
      return inOrderOf(raw, {
        type: 'text',
        text: text(requireKey(raw, 'text', path), child(path, 'text'), { min: 1, max: TEXT_MAX }),
      });
    case 'record':
      onlyKeys(raw, path, ['type', 'fields', 'label'], 'a record component');
      return inOrderOf(raw, {
        type: 'record',
        fields: scalarRecord(requireKey(raw, 'fields', path), child(path, 'fields'), { min: 1, max: RECORD_FIELDS_MAX }),
        label: Object.hasOwn(raw, 'label')
          ? text(raw.label, child(path, 'label'), { min: 1, max: LABEL_MAX, nonBlank: true })
          : undefined,
      });
    default:
      return fieldComponent(raw, path);
  }
}
