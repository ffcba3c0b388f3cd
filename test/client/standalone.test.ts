import { readdir, readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';

/** The client can be published on its own: it imports nothing of the service's. */

const CLIENT = new URL('../../src/client/', import.meta.url);

it('imports only its own files and packages the service installs for running, not for building', async () => {
  const { dependencies } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };
  const packages = new Set<string>();
  for (const file of await readdir(CLIENT)) {
    const source = await readFile(new URL(file, CLIENT), 'utf8');
    for (const [, specifier] of source.matchAll(/^(?:import|export)[^;]*? from '([^']+)'/gm)) {
      if (specifier!.startsWith('../')) throw new Error(`${file} imports ${specifier} from outside the client`);
      if (!specifier!.startsWith('./')) packages.add(specifier!.split('/')[0]!);
    }
  }
  expect([...packages].sort()).toEqual(['canonicalize', 'jose', 'lru-cache', 'standardwebhooks']);
  for (const name of packages) expect(dependencies).toHaveProperty(name);
});
