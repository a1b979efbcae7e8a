// Mutation testing for the pure decision modules of @sluice/contracts (a decision no test pins
// down is one a refactor can break silently). Run with `npm run mutation -w @sluice/contracts`;
// not part of `npm test`.
//
// Score rule: killed (timeouts NOT counted) / (all mutants - mutants ignored with a written
// reason) must be >= 90 %. Stryker's own score counts timeouts as killed, so this file also
// registers a small `killed-only` reporter that prints the rule's figures per file and fails the
// run (exit code 1) below 90 %. MUTATION.md has the last run's figures.
import { PluginKind, declareClassPlugin } from '@stryker-mutator/api/plugin';
import { KilledOnlyReporter } from '../../scripts/stryker-killed-only.mjs';

export const strykerPlugins = [
  declareClassPlugin(PluginKind.Reporter, 'killed-only', KilledOnlyReporter),
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner', './stryker.config.mjs'],
  // Runtime tests only: the config does not turn on typecheck mode (that takes `--typecheck`),
  // and type tests (`*.test-d.ts`) cannot kill a runtime mutant anyway.
  vitest: { configFile: 'vitest.config.ts' },
  mutate: [
    'src/state-machine.ts',
    'src/idempotency.ts',
    'src/recovery.ts',
    'src/version-routing.ts',
    'src/job-id.ts',
    'src/message-pointer.ts',
  ],
  // No mutant is ignored (no `mutator.excludedMutations`, no disable comments): the 9 equivalent
  // survivors and 4 infinite-loop timeouts stay in the denominator; MUTATION.md explains each.
  // perTest: each mutant runs only the tests that cover it. Static mutants (module-level tables
  // such as TRANSITIONS) are NOT ignored: they are part of the contract and run every test.
  coverageAnalysis: 'perTest',
  concurrency: 2,
  // 2-core shared box: a vitest start costs seconds; a short timeout would turn slow runs into
  // "Timeout", which Stryker counts as killed (4.1). The killed-only reporter does not.
  timeoutMS: 30_000,
  reporters: ['clear-text', 'json', 'progress', 'killed-only'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false },
  thresholds: { high: 95, low: 90, break: 90 },
  // The sandbox must sit two levels below the repo root, like this package, so that
  // `../../vitest.shared.js` and `../../tsconfig.base.json` still resolve inside it.
  tempDirName: '../../.stryker-tmp',
  // Stryker rewrites the tsconfig's `extends` assuming the sandbox is two levels below this
  // package (the default `.stryker-tmp`); here it is not, and `../../tsconfig.base.json` is
  // already right. Naming a file that does not exist turns that rewrite off.
  tsconfigFile: 'tsconfig.stryker-no-rewrite.json',
  cleanTempDir: 'always',
};
