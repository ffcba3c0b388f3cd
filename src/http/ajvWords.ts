import type { ErrorObject } from 'ajv';
import { requestProblem } from '../client/words.js';
import type { ApiError } from './errors.js';
import { edgeRefused } from './edgeRefusals.js';

/**
 * Ajv's errors in words are declared once, in src/client/words.ts, because the MCP tools packed
 * with the client word their refusals with them too; here they become the envelope's error.
 */
export { phrase } from '../client/words.js';

/** The refusal of the first Ajv error of a request part (`context`) whose value was `root`: 400, its message opening with the path of what is refused. */
export function fromAjv(errors: readonly ErrorObject[], context: string, root: unknown): ApiError {
  const { code, message } = requestProblem(errors, context, root);
  return edgeRefused(code === 'UNKNOWN_COMPONENT' ? { refused: 'component_unknown', message } : { refused: 'request_invalid', message });
}
