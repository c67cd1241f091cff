// The linter of the explorer page's modules (web/) and of their unit
// tests: ESLint's recommended rules, the browser's globals for the page
// (its worker's for the worker), node's for the tests; run by .ci/run.
import js from '@eslint/js';
import globals from 'globals';

export default [
  js.configs.recommended,
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module' },
    rules: {
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none' }],
      'no-shadow': 'error',
      'prefer-const': 'error',
      eqeqeq: ['error', 'always'],
      'no-var': 'error',
    },
  },
  { files: ['web/**/*.js'], languageOptions: { globals: globals.browser } },
  { files: ['web/wasm-worker.js'], languageOptions: { globals: globals.worker } },
  { files: ['tests/web/*.mjs'], languageOptions: { globals: globals.node } },
];
