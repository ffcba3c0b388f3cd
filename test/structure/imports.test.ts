import madge from 'madge';
import { expect, it } from 'vitest';

/**
 * No module imports one that imports it back (type-only imports vanish at runtime and do not
 * count). `npm run lint` runs the same check from the command line.
 */
it('has no import cycle among the service, the event store and the projection runner', async () => {
  const graph = await madge(['src', 'eventstore', 'projections'], {
    fileExtensions: ['ts'],
    detectiveOptions: { ts: { skipTypeImports: true }, es6: { skipTypeImports: true } },
  });
  expect(graph.circular()).toEqual([]);
  // The graph is real: the composition root reaches the store through the projections list.
  expect(graph.obj()['src/context.ts']).toContain('src/projections.ts');
});
