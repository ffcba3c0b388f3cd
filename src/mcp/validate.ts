import { Ajv } from 'ajv';
import { argumentProblem } from '../client/index.js';

/**
 * Tool arguments checked against the tool's own input schema, every problem in one sentence that
 * names the argument as an agent wrote it (`fields[0].type`), so the agent can correct its call;
 * the words are the service's own (src/client/words.ts).
 */

const ajv = new Ajv({ allErrors: true, strict: true });

export type ArgumentCheck = (input: unknown) => string[];

export function argumentCheck(schema: object): ArgumentCheck {
  const validate = ajv.compile(schema);
  return (input) => (validate(input) ? [] : (validate.errors ?? []).map((error) => argumentProblem(error, input)));
}
