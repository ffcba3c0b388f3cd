import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { AJV_OPTIONS } from '../../src/http/ajv.js';
import { committedContract } from '../../src/openapi.js';

/** A place in the contract document, as a JSON Pointer. */
export const pointer = (...segments: string[]): string => segments.map((s) => `/${s.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

/**
 * Checks values against the schemas of a contract document, each named by its JSON Pointer, with
 * the options the routes' validator uses (http/ajv.ts) and the formats fastify adds to it. The
 * answer is the list of faults: empty when the value is valid.
 */
export function contractChecker(document: object): (at: string, value: unknown) => string[] {
  const ajv = new Ajv({ ...AJV_OPTIONS, allErrors: true });
  // ajv-formats is CommonJS: its plugin is `default` of what the import gives.
  formats.default(ajv);
  // The document's own members are no schema keywords: Ajv compiles only what a pointer names.
  ajv.addVocabulary(Object.keys(document));
  ajv.addSchema(document, 'contract');
  return (at, value) => {
    const validate = ajv.compile({ $ref: `contract#${at.split('/').map(encodeURIComponent).join('/')}` });
    return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? error.keyword}`);
  };
}

interface WebhookOperation {
  parameters: Array<{ $ref: string }>;
  requestBody: { content: { 'application/json': object } };
}

/**
 * What a request the service sent to a webhook endpoint does not meet of the committed
 * contract's `webhooks` entry: its JSON body against the body's schema, each declared header
 * against its own. Empty when it meets all of it.
 */
export async function webhookFaults(webhook: string, request: { headers: Record<string, string | string[] | undefined>; body: string }): Promise<string[]> {
  const document = JSON.parse(await committedContract()) as {
    webhooks: Record<string, { post: WebhookOperation }>;
    components: { parameters: Record<string, { name: string }> };
  };
  const check = contractChecker(document);
  const at = ['webhooks', webhook, 'post'];
  const headers = document.webhooks[webhook]!.post.parameters.flatMap(({ $ref }) => {
    const name = $ref.split('/').at(-1)!;
    const header = document.components.parameters[name]!.name;
    return check(pointer('components', 'parameters', name, 'schema'), request.headers[header]).map((fault) => `${header}: ${fault}`);
  });
  return [...headers, ...check(pointer(...at, 'requestBody', 'content', 'application/json', 'schema'), JSON.parse(request.body))];
}
