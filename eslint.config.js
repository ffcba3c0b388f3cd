import js from '@eslint/js';
import { existsSync, readdirSync } from 'node:fs';
import { URL } from 'node:url';
import tseslint from 'typescript-eslint';

/**
 * The rooms of src/ that others enter only through their index.ts: every folder with one (each
 * capability, whose record is there, and a shared room such as waits/), found on disk so that a
 * new capability is inside the boundary the moment it exists. The client is held to more (below).
 */
const rooms = readdirSync(new URL('./src/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'client' && existsSync(new URL(`./src/${entry.name}/index.ts`, import.meta.url)))
  .map((entry) => entry.name);

/** Imports of an inner file of one of `names` from a test: through the repository's src/. */
const testReachingInto = (names) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          regex: `^(\\.\\./)+src/(${names.join('|')})/(?!index\\.js$)`,
          message: "A test uses a capability through its index.ts or test support; only the capability's own test folder reaches inside.",
        },
      ],
    },
  ],
});

/** Flat config: ESLint's and typescript-eslint's recommended rules over every file of the repository. */
export default tseslint.config(
  { ignores: ['node_modules/', '.data/', 'test-output/', 'build/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // `_name` marks a parameter or binding that is deliberately unused (a signature to honour, a key to drop).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // A capability is one record behind its index.ts (src/capability.ts): another capability, and
    // the composition root, import it only from there, never one of its inner files.
    // test/structure/rooms.test.ts checks that every capability of the list is such a room.
    files: ['src/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(\\./|(\\.\\./)+)(${rooms.join('|')})/(?!index\\.js$)`,
              message: 'Import another capability (or shared room) only through its index.ts.',
            },
          ],
          paths: [{ name: 'ulid', message: "Make ids with newUlid (eventstore): ulid's own source asks the system for one byte per character." }],
        },
      ],
    },
  },
  {
    // The client can be published on its own: it imports its own files and its dependencies, never the service's code.
    files: ['src/client/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['../*'], message: 'src/client imports only its own files and its dependencies.' }] }],
    },
  },
  {
    // The MCP server is packed with the client: it imports its own files, the client and its dependencies.
    files: ['src/mcp/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../*', '!../client'], message: 'src/mcp imports only its own files, the client (../client/) and its dependencies.' }] },
      ],
    },
  },
  // Tests use a capability as the service does, or through test support; test/<name>/ may unit-test the inner files of src/<name>/.
  // Inner files stay reachable from three places: test support, where a test's reach into a
  // capability is kept; the plan guard, which plans every statement of every sql.ts; and the old
  // shapes' test, which writes each stream kind's stored shapes below its commands.
  {
    files: ['test/**', 'property-tests/**'],
    ignores: ['test/support/**', 'test/plans/**', 'test/projections/old-shapes.test.ts'],
    rules: testReachingInto(rooms),
  },
  ...rooms.map((room) => ({ files: [`test/${room}/**`], rules: testReachingInto(rooms.filter((other) => other !== room)) })),
  {
    // Tests build sparse arrays on purpose, to prove that holes are refused.
    files: ['test/**', 'property-tests/**'],
    rules: { 'no-sparse-arrays': 'off' },
  },
);
