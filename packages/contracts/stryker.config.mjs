// Mutation testing for the pure decision modules of @sluice/contracts (reliability-anchors.md
// 4.1 and 5.8). Run with `npm run mutation -w @sluice/contracts`; not part of `npm test`.
//
// Score rule: killed (timeouts NOT counted) / (all mutants - mutants ignored with a written
// reason) must be >= 90 %. Stryker's own score counts timeouts as killed, so this file also
// registers a small `killed-only` reporter that prints the rule's figures per file and fails the
// run (exit code 1) below 90 %. MUTATION.md has the last run's figures.
import process from 'node:process';
import { PluginKind, commonTokens, declareClassPlugin } from '@stryker-mutator/api/plugin';

const KILLED_ONLY_MIN = 90;

/** Prints killed / survived / timeout / no-coverage / ignored per file and the killed-only score. */
class KilledOnlyReporter {
  static inject = [commonTokens.logger];
  constructor(log) {
    this.log = log;
  }
  onMutationTestReportReady(report) {
    const rows = [];
    const total = { killed: 0, survived: 0, timeout: 0, noCoverage: 0, ignored: 0, other: 0 };
    for (const [file, { mutants }] of Object.entries(report.files)) {
      const row = { killed: 0, survived: 0, timeout: 0, noCoverage: 0, ignored: 0, other: 0 };
      for (const m of mutants) {
        const key =
          {
            Killed: 'killed',
            Survived: 'survived',
            Timeout: 'timeout',
            NoCoverage: 'noCoverage',
            Ignored: 'ignored',
          }[m.status] ?? 'other';
        row[key] += 1;
        total[key] += 1;
      }
      rows.push([file, row]);
    }
    rows.push(['total', total]);
    const score = (r) => {
      const counted = r.killed + r.survived + r.timeout + r.noCoverage + r.other;
      return counted === 0 ? 100 : (100 * r.killed) / counted;
    };
    const lines = ['killed-only score (timeouts not counted as killed; ignored mutants excluded):'];
    lines.push(
      'file | killed | survived | timeout | no-coverage | ignored | other | killed-only %',
    );
    for (const [file, r] of rows) {
      lines.push(
        `${file} | ${r.killed} | ${r.survived} | ${r.timeout} | ${r.noCoverage} | ${r.ignored} | ${r.other} | ${score(r).toFixed(2)}`,
      );
    }
    const totalScore = score(total);
    lines.push(`killed-only total: ${totalScore.toFixed(2)} % (minimum ${KILLED_ONLY_MIN} %)`);
    this.log.info(`\n${lines.join('\n')}`);
    if (totalScore < KILLED_ONLY_MIN) {
      this.log.error(`killed-only score ${totalScore.toFixed(2)} % is below ${KILLED_ONLY_MIN} %`);
      process.exitCode = 1;
    }
  }
}

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
