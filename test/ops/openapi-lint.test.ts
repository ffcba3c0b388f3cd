import { loadConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { parse } from 'yaml';
import { COMMITTED_CONTRACT, committedContract } from '../../src/openapi.js';

/**
 * docs/openapi.json passes Redocly's `recommended` OpenAPI rules, none switched off, as
 * `npx @redocly/cli lint docs/openapi.json` runs them with the repository's redocly.yaml: no
 * error, and no warning but the ones that file gives a reason for.
 */

const CONFIG = fileURLToPath(new URL('../../redocly.yaml', import.meta.url));

/** The warnings redocly.yaml keeps, each with its reason there: operations nothing of a request can refuse. */
const JUSTIFIED = ['/health/live', '/health/ready', '/version', '/.well-known/svc-receipt-keys.json', '/.well-known/svc-log-verifier-keys.txt'].map(
  (path) => `warn operation-4xx-response at #/paths/${path.replaceAll('/', '~1')}/get/responses`,
);

const where = (problem: NormalizedProblem) => `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer ?? ''}`;

const lint = async (source: string) => lintFromString({ source, absoluteRef: COMMITTED_CONTRACT, config: await loadConfig({ configPath: CONFIG }) });

it('redocly.yaml is the recommended ruleset with no rule switched off', async () => {
  expect(parse(await readFile(CONFIG, 'utf8'))).toEqual({ extends: ['recommended'] });
});

it('lints docs/openapi.json with no error, and no warning but those redocly.yaml justifies', async () => {
  const problems = await lint(await committedContract());
  expect(problems.map(where).sort()).toEqual([...JUSTIFIED].sort());
});

it('finds the faults it is there to find', async () => {
  const document = JSON.parse(await committedContract());
  delete document.paths['/v1/sessions'].post.summary;
  document.paths['/v1/sessions'].post.operationId = document.paths['/v1/me'].get.operationId;
  delete document.servers;
  delete document.tags[0].description;
  document.paths['/v1/sessions'].post.requestBody.content['application/json'].example.interaction.mode = 'form';
  const problems = await lint(JSON.stringify(document));
  expect(problems.map((p) => p.ruleId)).toEqual(
    expect.arrayContaining(['operation-summary', 'operation-operationId-unique', 'no-empty-servers', 'tag-description', 'no-invalid-media-type-examples']),
  );
});
