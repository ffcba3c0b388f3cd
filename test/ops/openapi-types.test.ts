import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { committedContract } from '../../src/openapi.js';

/**
 * A stock generator reads the contract right: `openapi-typescript`, with its default options,
 * types docs/openapi.json, and the README's request bodies (taken from its curl examples, so they
 * cannot drift) and a typical handler of the answers compile against those types, strict. A body
 * the contract refuses does not.
 */

interface Example {
  method: string;
  path: string;
  body: string;
}

const README = new URL('../../README.md', import.meta.url);

/** Each curl of the README that sends a body: its method, the contract's path it calls and the body as written. */
async function readmeBodies(paths: readonly string[]): Promise<Example[]> {
  const readme = await readFile(README, 'utf8');
  return [...readme.matchAll(/curl [^\n]*?http:\/\/[^/\s]+(\/[^\s'"?]*)[\s\S]*?-d '([^']*)'/g)].map(([command, url, body]) => {
    const path = paths.find((template) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(url!));
    if (!path) throw new Error(`The README calls ${url}, which the contract does not have.`);
    return { method: /-X (\w+)/.exec(command)?.[1]?.toLowerCase() ?? 'post', path, body: body! };
  });
}

const bodyType = ({ method, path }: Pick<Example, 'method' | 'path'>) => `paths['${path}']['${method}']['requestBody']['content']['application/json']`;

/** What an agent does with the answers: read a Session, tell its interaction by mode and its components by type, read a refusal. */
const HANDLER = `
type Session = paths['/v1/sessions/{id}']['get']['responses'][200]['content']['application/json'];
type Refusal = components['schemas']['ErrorEnvelope'];
type Created = paths['/v1/sessions']['post']['responses'][201]['content']['application/json'];

export function describeSession(session: Session): string {
  const { interaction } = session;
  if (interaction.mode === 'display') return Object.keys(interaction.source.data).join(', ');
  const fields = interaction.source.components.flatMap((component) => (component.type === 'field' ? [component.name + ':' + component.schema.type] : []));
  const answer = session.responses?.[0];
  return [interaction.title, ...fields, ...interaction.actions.map((action) => action.id), answer ? answer.action_id + ' ' + (answer.receipt ?? '') : 'waiting'].join(' ');
}

export const created = (answer: Created): string => answer.human_url + ' ' + answer.link_expires_at;
export const refused = (answer: Refusal): string => answer.error.code + ': ' + answer.error.message + ' ' + answer.error.request_id;
type Feed = paths['/v1/events']['get']['parameters']['query'];
export const page: Feed = { limit: 50 };
`;

let dir: string;
let examples: Example[];

beforeAll(async () => {
  const document = await committedContract();
  dir = await mkdtemp(join(tmpdir(), 'contract-types-'));
  await writeFile(join(dir, 'api.ts'), astToString(await openapiTS(document)));
  examples = await readmeBodies(Object.keys((JSON.parse(document) as { paths: object }).paths));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The diagnostics of `source` compiled strict beside the generated types, each as `line: message`. */
async function compile(source: string): Promise<string[]> {
  const file = join(dir, 'check.ts');
  await writeFile(file, `import type { components, paths } from './api';\n${source}`);
  const program = ts.createProgram([file], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, skipLibCheck: true });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const line = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line : -1;
    return `${line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}

it("the README's request bodies and a typical answer handler compile against the generated types", async () => {
  expect(examples.map(({ method, path }) => `${method} ${path}`)).toContain('post /v1/sessions');
  const bodies = examples.map((example, i) => `export const body${i}: ${bodyType(example)} = ${example.body};`).join('\n');
  expect(await compile(`${bodies}\n${HANDLER}`)).toEqual([]);
});

it('a body the contract refuses does not compile: a field schema of no type, an interaction of no mode', async () => {
  const create = bodyType({ method: 'post', path: '/v1/sessions' });
  const [example] = examples;
  const wrongSchema = example!.body.replace('"schema": {"type": "number"', '"schema": {"type": "decimal"');
  expect(wrongSchema).not.toBe(example!.body);
  const problems = await compile(`export const noMode: ${create} = { interaction: { title: 'T', source: { kind: 'data', data: { a: 1 } } } };\nexport const wrong: ${create} = ${wrongSchema};\n`);
  expect(problems.filter((problem) => problem.startsWith('1: '))).toHaveLength(1);
  expect(problems.filter((problem) => !problem.startsWith('1: ') && problem.includes('"decimal"'))).toHaveLength(1);
  expect(problems).toHaveLength(2);
});
