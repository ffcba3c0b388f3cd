import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { expect, it } from 'vitest';
import { COMMITTED_CONTRACT, committedContract } from '../../src/openapi.js';

/**
 * docs/openapi.json passes Redocly's `recommended` OpenAPI rules with neither error nor warning,
 * but for the rules turned off here, each for its reason.
 */
const RULES = {
  // Each deployment serves the document at its own origin (SVC_PUBLIC_ORIGIN); a client is given its base URL.
  'no-empty-servers': 'off',
  // The service is not published under a licence; the document describes one deployment's API.
  'info-license': 'off',
  // The health, version and receipt-key routes take no input, so there is nothing for them to refuse with a 4xx.
  'operation-4xx-response': 'off',
  // Redocly reads an object schema without additionalProperties as closed, which the interaction's
  // checks in steps (allOf, if/then) are not: the examples are validated as the routes validate
  // them, in test/ops/openapi-contract.test.ts.
  'no-invalid-media-type-examples': { severity: 'error', allowAdditionalProperties: true },
} as const;

const where = (problem: NormalizedProblem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer ?? ''}`;

it('lints docs/openapi.json with no error and no warning (Redocly recommended)', async () => {
  const config = await createConfig({ extends: ['recommended'], rules: RULES });
  const problems = await lintFromString({ source: await committedContract(), absoluteRef: COMMITTED_CONTRACT, config });
  expect(problems.map(where)).toEqual([]);
});

it('finds the faults it is there to find', async () => {
  const config = await createConfig({ extends: ['recommended'], rules: RULES });
  const document = JSON.parse(await committedContract());
  delete document.paths['/v1/sessions'].post.summary;
  document.paths['/v1/sessions'].post.operationId = document.paths['/v1/me'].get.operationId;
  const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: COMMITTED_CONTRACT, config });
  expect(problems.map((p) => p.ruleId)).toEqual(expect.arrayContaining(['operation-summary', 'operation-operationId-unique']));
});
