import { existsSync } from 'node:fs';
import { ESLint } from 'eslint';
import { expect, it } from 'vitest';
import { capabilities } from '../../src/capabilities.js';

/**
 * A capability is one folder and one line of src/capabilities.ts: its folder is named as its
 * record, and `npm run lint` refuses an import of any of its inner files from another folder, with
 * nothing else to keep in step (the boundary in eslint.config.js is read from the folders).
 */
it("keeps every capability of the list behind its index.ts, and lets its own files and its index through", async () => {
  const eslint = new ESLint();
  const restricted = async (from: string, path: string) =>
    (await eslint.lintText(`import { x } from '${path}';\nexport { x };\n`, { filePath: from }))[0]!.messages.some((m) => m.ruleId === 'no-restricted-imports');
  for (const { name } of capabilities) {
    expect(existsSync(new URL(`../../src/${name}/index.ts`, import.meta.url)), name).toBe(true);
    const elsewhere = name === 'feed' ? 'src/trials/x.ts' : 'src/feed/x.ts';
    expect(await restricted(elsewhere, `../${name}/sql.js`), name).toBe(true);
    expect(await restricted('src/context.ts', `./${name}/sql.js`), name).toBe(true);
    expect(await restricted(elsewhere, `../${name}/index.js`), name).toBe(false);
    expect(await restricted(`src/${name}/x.ts`, './sql.js'), name).toBe(false);
  }
  // A shared room with an index.ts is held to it the same way.
  expect(await restricted('src/http/contract.ts', '../waits/schemas.js')).toBe(true);
}, 120_000);
