// The killed-only score rule shared by every package's Stryker config: killed (timeouts NOT
// counted) / (all mutants - mutants ignored with a written reason) must be >= 90 %. Stryker's own
// score counts timeouts as killed, so this reporter prints the rule's figures per file and fails
// the run (exit code 1) below the minimum. Register it with
// `declareClassPlugin(PluginKind.Reporter, 'killed-only', KilledOnlyReporter)`.
import process from 'node:process';
import { commonTokens } from '@stryker-mutator/api/plugin';

export const KILLED_ONLY_MIN = 90;

/** Prints killed / survived / timeout / no-coverage / ignored per file and the killed-only score. */
export class KilledOnlyReporter {
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
