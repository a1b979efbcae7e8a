// Mutation testing for the worker's decision modules (a decision no test pins down is one a
// refactor can break silently):
// the provider guard's decisions, the recovery → outcome mapping, delivery routing, the unit
// pool, unit checkpoints and the asset protocol's decisions. Run with
// `npm run mutation -w @sluice/worker`; not part of `npm test`. MUTATION.md has the last figures.
//
// Score rule (as in packages/contracts): killed (timeouts NOT counted) / (all mutants - mutants
// ignored with a written reason in this config) >= 90 %. The `killed-only` reporter below prints
// the rule's figures per file and fails the run (exit code 1) under 90 %.
//
// Ignored, with the reason: crash-point calls (`hooks.at('…')`, src/hooks.ts). They do nothing
// unless a crash-point test injects hooks into a worker process, which Stryker does not mutate;
// the crash-point matrix proves them. Nothing else is ignored. (Seeded bugs are no longer
// branches in these modules: they are injected decisions, src/testing/seeded-bugs.ts.)
import { PluginKind, declareClassPlugin, declareValuePlugin } from '@stryker-mutator/api/plugin';
import { KilledOnlyReporter } from '../../scripts/stryker-killed-only.mjs';

const CRASHPOINT_REASON =
  'crash point: acts only when a crash-point test injects hooks into a worker process, which Stryker does not mutate (proven by the crash-point matrix)';

/** Ignores crash-point statements: `hooks.at('…')` (any receiver, a string literal point). */
const crashPointIgnorer = {
  shouldIgnore(path) {
    const node = path.node;
    const call = node?.type === 'ExpressionStatement' ? node.expression : undefined;
    if (
      call?.type === 'CallExpression' &&
      call.callee?.type === 'MemberExpression' &&
      call.callee.property?.name === 'at' &&
      call.arguments?.[0]?.type === 'StringLiteral'
    ) {
      return CRASHPOINT_REASON;
    }
    return undefined;
  },
};

export const strykerPlugins = [
  declareClassPlugin(PluginKind.Reporter, 'killed-only', KilledOnlyReporter),
  declareValuePlugin(PluginKind.Ignore, 'crash-point', crashPointIgnorer),
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner', './stryker.config.mjs'],
  vitest: { configFile: 'vitest.stryker.config.ts' },
  mutate: [
    'src/guard/decide-from-ledger.ts',
    'src/guard/recovery-error.ts',
    'src/attempt/decide-outcome.ts',
    'src/host/decide-delivery.ts',
    'src/attempt/pool.ts',
    'src/checkpoints/unit-checkpoints.ts',
    'src/assets/decide-asset.ts',
  ],
  ignorers: ['crash-point'],
  coverageAnalysis: 'perTest',
  concurrency: 2,
  // 2-core shared box: a vitest start costs seconds, and the checkpoint tests create a real
  // PostgreSQL database; a short timeout would turn slow runs into "Timeout".
  timeoutMS: 30_000,
  reporters: ['clear-text', 'json', 'progress', 'killed-only'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false },
  thresholds: { high: 95, low: 90, break: 90 },
  // The sandbox sits two levels below the repo root, like this package, so that
  // `../../vitest.shared.js` and `../../tsconfig.base.json` still resolve inside it.
  tempDirName: '../../.stryker-tmp',
  // See packages/contracts/stryker.config.mjs: naming a missing file turns off Stryker's
  // tsconfig `extends` rewrite, which would be wrong for this sandbox location.
  tsconfigFile: 'tsconfig.stryker-no-rewrite.json',
  cleanTempDir: 'always',
};
