// Lint: type-aware rules that catch the bugs this project cares about (floating promises,
// non-exhaustive switches over state and class unions, value imports that drag server code
// into browser bundles).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/coverage/**',
      '**/.stryker-tmp/**',
      '**/.wrangler/**',
      '.tools/**',
      '**/reports/**',
      'bench/results/**',
      '**/*.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mts'],
    languageOptions: {
      parserOptions: {
        // Root-level config files belong to no package's tsconfig.
        projectService: { allowDefaultProject: ['vitest.shared.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-explicit-any': 'warn',
    },
  },
  // The worker's runtime adapters see only the public seam: @sluice/contracts
  // and the worker's runtime types (`runtimes/types.ts`); never worker internals, storage or a
  // driver, so a fourth runtime could be written outside the repo.
  ...[
    { files: ['packages/worker/src/runtimes/*.ts'], internal: ['../*'] },
    {
      files: ['packages/worker/src/runtimes/*/**/*.ts'],
      internal: ['../../*', '../*', '!../types.js'],
    },
  ].map(({ files, internal }) => ({
    files,
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: internal,
              message:
                'Runtime adapters import only @sluice/contracts and the worker runtime types.',
            },
            {
              group: [
                '@sluice/storage',
                '@sluice/storage/*',
                'iovalkey',
                'better-sqlite3',
                'pg',
                'node:*',
              ],
              message:
                'Runtime adapters take their store or client as a narrow interface (runtimes/types.ts).',
            },
          ],
        },
      ],
    },
  })),
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      globals: { process: 'readonly', URL: 'readonly', console: 'readonly', Buffer: 'readonly' },
    },
  },
);
