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
