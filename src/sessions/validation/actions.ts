import { invalid } from '../../http/errors.js';
import { ACTION_INTENTS, type Action } from '../interaction.js';
import { ACTION_ID_PATTERN, ACTIONS_MAX, LABEL_MAX } from './limits.js';
import { array, child, inOrderOf, matching, object, onlyKeys, requireKey, text } from './read.js';

/** The actions of an interactive interaction (SPEC 2.2): 1 to 5, each ID used once. */
export function actionList(value: unknown, path: string): Action[] {
  const items = array(value, path);
  if (items.length < 1 || items.length > ACTIONS_MAX) {
    throw invalid(`${path} must have 1 to ${ACTIONS_MAX} actions (it has ${items.length}).`);
  }
  const idAt = new Map<string, string>();
  return items.map((item, index) => {
    const at = child(path, index);
    const raw = object(item, at);
    onlyKeys(raw, at, ['id', 'label', 'intent'], 'an action');
    const id = matching(
      requireKey(raw, 'id', at),
      child(at, 'id'),
      ACTION_ID_PATTERN,
      'an action ID: 1 to 32 characters, a lower-case letter, then lower-case letters, digits or underscores',
    );
    // A submission names its action by ID, so two actions with one ID could not be told apart.
    const first = idAt.get(id);
    if (first !== undefined) throw invalid(`${at}.id repeats the action ID "${id}" of ${first}.`);
    idAt.set(id, at);
    const label = text(requireKey(raw, 'label', at), child(at, 'label'), { min: 1, max: LABEL_MAX, nonBlank: true });
    const intent = raw.intent;
    if (Object.hasOwn(raw, 'intent') && !ACTION_INTENTS.includes(intent as Action['intent'] & string)) {
      throw invalid(`${at}.intent must be one of ${ACTION_INTENTS.map((i) => JSON.stringify(i)).join(', ')}.`);
    }
    return inOrderOf<Action>(raw, { id, label, intent });
  });
}
