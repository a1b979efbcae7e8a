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
  // The core names no runtime: gateway, worker, contracts and storage never import a runtime
  // package; the CLI only in its name -> factory map. A runtime package reaches the core through
  // its public entries (and the test-only `…/conformance` and `…/chaos` in tests), never through
  // another package's files.
  {
    files: [
      'packages/{contracts,storage,gateway,worker,client,react}/**/*.ts',
      'packages/cli/**/*.ts',
    ],
    ignores: [
      'packages/cli/src/runtimes/registry.ts',
      'packages/cli/src/runtimes/registry.test.ts',
      // The client's end-to-end fixtures stand up whole clusters, one per runtime, as an app would.
      'packages/client/test/fixtures/**',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@sluice/runtime-*'],
              message:
                'The core names no runtime: take the runtime object (only the CLI name map imports runtime packages).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/runtime-*/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@sluice/*/src/*', '../../*/src/*', '../../../*/src/*'],
              message: 'A runtime package uses the public entries of gateway, worker and storage.',
            },
          ],
        },
      ],
    },
  },
  // (Flat config replaces a rule's options per file: the narrower rooms come after the wide rules
  // and repeat what they must still forbid.)
  // The worker's embedded adapter sees only the public seam: @sluice/contracts and the worker's
  // runtime types (`runtimes/types.ts`); never worker internals, storage or a driver.
  {
    files: ['packages/worker/src/runtimes/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../*'],
              message:
                'Runtime adapters import only @sluice/contracts and the worker runtime types.',
            },
            {
              group: [
                '@sluice/storage',
                '@sluice/storage/*',
                '@sluice/runtime-*',
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
  },
  // A runtime package's consumer room (the Streams consumer) sees contracts, its own room and the
  // package's keys, replies and capabilities; its client is the narrow `StreamsClient`, built
  // outside the room (create-*.ts, managed-connection.ts), so it could run over another client.
  {
    files: ['packages/runtime-valkey-streams/src/worker/*.ts'],
    ignores: [
      '**/*.test.ts',
      'packages/runtime-valkey-streams/src/worker/create-*.ts',
      'packages/runtime-valkey-streams/src/worker/managed-connection.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '../*',
                '!../keys.js',
                '!../replies.js',
                '!../events.js',
                '!../capabilities.js',
              ],
              message:
                'The consumer room imports contracts, its own room, keys, replies and events.',
            },
            {
              group: [
                '@sluice/*',
                '!@sluice/contracts',
                '!@sluice/worker',
                '@sluice/worker/*',
                '!@sluice/worker/node',
                'iovalkey',
                'node:*',
              ],
              message: 'The consumer takes its client as a narrow interface (types.ts).',
            },
            {
              // Of the worker, only its timer helper: the heartbeat and maintenance rounds run
              // like the host's own (never two at once, never keeping the process alive).
              group: ['@sluice/worker', '@sluice/worker/node'],
              allowImportNames: ['every', 'Periodic'],
              message: 'The consumer room takes only the periodic helper from the worker.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      globals: { process: 'readonly', URL: 'readonly', console: 'readonly', Buffer: 'readonly' },
    },
  },
);
