// ESLint: typescript-eslint's recommended rules, promises that must be handled,
// and no import cycles. `npm run lint` runs it (and Prettier's check); `npm test` runs lint.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'templates/**', 'coverage/**', '.venv-*/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['runtime/**/*.ts', 'cli/**/*.ts', 'repl/**/*.{ts,tsx}', 'bench/**/*.ts', 'test/**/*.{ts,tsx}'],
    languageOptions: {
      parserOptions: { project: ['./tsconfig.test.json'], tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.test.json' })] },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', destructuredArrayIgnorePattern: '^_' },
      ],
      // Wire data and test doubles are typed at their schema; `any` stays a warning-free escape in tests only.
      '@typescript-eslint/no-explicit-any': 'error',
      'no-control-regex': 'off',
      // A variable reassigned through destructuring stays `let` with its partner.
      'prefer-const': ['error', { destructuring: 'all' }],
      // Walking a tree from `this` (`let node = this; node = node.child(k)`) is the clearest form.
      '@typescript-eslint/no-this-alias': 'off',
    },
  },
  {
    files: ['test/**/*.{ts,tsx}', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
