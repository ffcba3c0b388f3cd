import { ApiError, invalid } from '../../http/errors.js';
import type { DisplayInteraction, Interaction, InteractiveInteraction } from '../interaction.js';
import { surfaceMeasure } from '../surfaceMeasure.js';
import { actionList } from './actions.js';
import { componentList, refuseUnknownTypes, surfaceComponents } from './components.js';
import { displayData } from './displayData.js';
import { DESCRIPTION_MAX, SURFACE_MEASURE_MAX, TITLE_MAX } from './limits.js';
import { inOrderOf, isPlainObject, object, onlyKeys, requireKey, text, type JsonObject } from './read.js';

/**
 * The request bodies that carry an interaction (SPEC 4.1, 4.3), read into the form that is stored.
 *
 * When a body has several faults, the first step that finds one decides the code:
 *  1. the body, then the interaction's own fields in this order: mode, no unknown property, title,
 *     description, source (kind, no unknown property, then the display data, or the component list
 *     with each item's `type`), actions, response_policy: 400 INVALID_SCHEMA;
 *  2. component types: 400 UNKNOWN_COMPONENT;
 *  3. each component's own fields, field schemas, option labels and proposed values, field names
 *     unique: 400 INVALID_SCHEMA;
 *  4. the Surface measure of the stored form: 413 PAYLOAD_TOO_LARGE.
 * Within a step the first fault in document order is reported.
 *
 * The stored form is the interaction as sent, every object's keys in the order sent, with only
 * `response_policy: "first"` appended when an interactive interaction omits it.
 */

const PATH = 'interaction';
const SOURCE = 'interaction.source';
const COMMON_KEYS = ['mode', 'title', 'description', 'source'];

/** POST /v1/sessions: `{interaction}`, display or interactive. */
export function parseCreateInteraction(body: unknown): Interaction {
  return interactionOf(body, ['display', 'interactive']);
}

/** PATCH /v1/sessions/{id} and POST /v1/trial/sessions: `{interaction}`, interactive only. */
export function parsePublishInteraction(body: unknown): InteractiveInteraction {
  return interactionOf(body, ['interactive']) as InteractiveInteraction;
}

function interactionOf(body: unknown, modes: readonly Interaction['mode'][]): Interaction {
  const raw = requestInteraction(body);
  const mode = requireKey(raw, 'mode', PATH);
  if (!modes.includes(mode as Interaction['mode'])) {
    throw invalid(`${PATH}.mode must be ${modes.map((m) => JSON.stringify(m)).join(' or ')}.`);
  }
  const interaction = mode === 'display' ? display(raw) : interactive(raw);
  const measure = surfaceMeasure(interaction);
  if (measure > SURFACE_MEASURE_MAX) {
    throw new ApiError(
      413,
      'PAYLOAD_TOO_LARGE',
      `${PATH} measures ${measure} bytes (UTF-8 bytes of its canonical JSON); a Surface may measure at most ${SURFACE_MEASURE_MAX}.`,
    );
  }
  return interaction;
}

function requestInteraction(body: unknown): JsonObject {
  if (!isPlainObject(body)) throw invalid('The request body must be a JSON object with the single property "interaction".');
  for (const key of Object.keys(body)) {
    if (key !== 'interaction') throw invalid(`The request body property ${JSON.stringify(key)} is not allowed: send only "interaction".`);
  }
  if (!Object.hasOwn(body, 'interaction')) throw invalid('The request body must have the property "interaction".');
  return object(body.interaction, PATH);
}

function titleAndDescription(raw: JsonObject): JsonObject {
  return {
    title: text(requireKey(raw, 'title', PATH), `${PATH}.title`, { min: 1, max: TITLE_MAX, nonBlank: true }),
    description: Object.hasOwn(raw, 'description')
      ? text(raw.description, `${PATH}.description`, { max: DESCRIPTION_MAX })
      : undefined,
  };
}

function sourceOf(raw: JsonObject, kind: string, keys: string[], what: string): JsonObject {
  const source = object(requireKey(raw, 'source', PATH), SOURCE);
  if (requireKey(source, 'kind', SOURCE) !== kind) {
    throw invalid(`${SOURCE}.kind must be "${kind}" for a ${raw.mode} interaction.`);
  }
  onlyKeys(source, SOURCE, keys, what);
  return source;
}

function display(raw: JsonObject): DisplayInteraction {
  onlyKeys(raw, PATH, COMMON_KEYS, 'a display interaction');
  const header = titleAndDescription(raw);
  const source = sourceOf(raw, 'data', ['kind', 'data'], 'a display source');
  const data = displayData(requireKey(source, 'data', SOURCE), `${SOURCE}.data`);
  return inOrderOf(raw, { mode: 'display', ...header, source: inOrderOf(source, { kind: 'data', data }) });
}

function interactive(raw: JsonObject): InteractiveInteraction {
  onlyKeys(raw, PATH, [...COMMON_KEYS, 'actions', 'response_policy'], 'an interactive interaction');
  const header = titleAndDescription(raw);
  const source = sourceOf(raw, 'svc_surface', ['kind', 'components'], 'a Surface source');
  const listed = componentList(requireKey(source, 'components', SOURCE), `${SOURCE}.components`);
  const actions = actionList(requireKey(raw, 'actions', PATH), `${PATH}.actions`);
  if (Object.hasOwn(raw, 'response_policy') && raw.response_policy !== 'first') {
    throw invalid(`${PATH}.response_policy must be "first", the only policy: one accepted response per revision.`);
  }
  refuseUnknownTypes(listed, `${SOURCE}.components`);
  const components = surfaceComponents(listed, `${SOURCE}.components`);
  const stored = inOrderOf<InteractiveInteraction>(raw, {
    mode: 'interactive',
    ...header,
    source: inOrderOf(source, { kind: 'svc_surface', components }),
    actions,
    response_policy: 'first',
  });
  // Spreading keeps a key where the request put it, and appends it when the request left it out.
  return { ...stored, response_policy: 'first' };
}
