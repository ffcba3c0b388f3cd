import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { capabilities } from '../../src/capabilities.js';

/**
 * The composition root builds the shared context from the capabilities' records alone: what a
 * capability brings to it (its projections, credentials, reactions, resources such as the
 * webhooks' egress) is declared in its record, so adding one never touches src/context.ts. The
 * metrics are the exception by design: ops implements them over every record's gauges.
 */
it('builds the context from the records: src/context.ts imports no capability but the metrics of ops', () => {
  const source = readFileSync(new URL('../../src/context.ts', import.meta.url), 'utf8');
  const imported = [...source.matchAll(/from '\.\/([\w-]+)\//g)].map((m) => m[1]);
  const names = new Set(capabilities.map((c) => c.name).filter((name) => name !== 'ops'));
  expect(imported.filter((folder) => names.has(folder!))).toEqual([]);
});
