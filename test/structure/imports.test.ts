import { readFile } from 'node:fs/promises';
import madge from 'madge';
import { expect, it } from 'vitest';

/**
 * No module imports one that imports it back, not even for a type: a cycle of types is a cycle
 * of meaning. The options are `.madgerc`'s, which `npm run lint` uses for the same check.
 */
it('has no import cycle among the service, the event store and the projection runner, types included', async () => {
  const options = JSON.parse(await readFile(new URL('../../.madgerc', import.meta.url), 'utf8')) as madge.MadgeConfig;
  expect(options.detectiveOptions).toEqual({ ts: { skipTypeImports: false }, es6: { skipTypeImports: false } });
  const graph = await madge(['src', 'eventstore', 'projections'], options);
  expect(graph.circular()).toEqual([]);
  // The graph is real: the composition root reaches the store through the capabilities list, and
  // type-only imports are in it.
  expect(graph.obj()['src/context.ts']).toContain('src/capabilities.ts');
  expect(graph.obj()['src/auth/owner.ts']).toContain('src/serviceContext.ts');
});
