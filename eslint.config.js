import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    files: ['src/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\./|(\\.\\./)+)(accounts|audit|auth|feed|human|mcpEndpoint|ops|purge|quotas|receipts|sessions|trials|webhooks)/(?!index\\.js$)',
              message: "Import another capability only through its index.ts.",
            },
          ],
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
  {
    // Tests build sparse arrays on purpose, to prove that holes are refused.
    files: ['test/**', 'property-tests/**'],
    rules: { 'no-sparse-arrays': 'off' },
  },
);
