// The tests Stryker runs against the worker's decision modules (stryker.config.mjs): in-process
// unit tests only. Tests that spawn worker processes or Redis run unmutated code in the children,
// so they cannot kill a mutant and would only make every mutant slow.
import { sluiceVitest } from '../../vitest.shared.js';

export default sluiceVitest({
  include: [
    'src/guard/decide-from-ledger*.test.ts',
    'src/guard/recovery-error*.test.ts',
    'src/decide-outcome*.test.ts',
    'src/decide-delivery*.test.ts',
    'src/pool*.test.ts',
    'src/checkpoints/unit-checkpoints*.test.ts',
    'src/assets/decide-asset.test.ts',
  ],
});
