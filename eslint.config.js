// The linter: ESLint's and typescript-eslint's recommended rules over the sources, tests, bench and
// scripts, with type information for the TypeScript files (so that a promise nobody awaits or handles,
// a promise passed where a plain callback is expected, and an `await` of a value that is no promise
// are errors), and one order of imports. Formatting is Prettier's alone (`npm run format`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importOrder from './eslint-rules/import-order.js';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        performance: 'readonly',
      },
    },
    plugins: { local: { rules: { 'import-order': importOrder } } },
    rules: {
      // `_name` marks a parameter or binding that is deliberately unused.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'no-constant-condition': ['error', { checkLoops: false }],
      'local/import-order': 'error',
    },
  },
  {
    // Typed linting: the TypeScript files, through the project of tsconfig.json (src, test, bench).
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // node:test's top-level test() and describe() return promises that the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
);
