// `npm run seeded-bugs`: proves the tests catch the known-dangerous changes. Each seeded bug is a
// known-dangerous variant of one decision, injected into the worker as hooks by test code only
// (packages/worker/src/testing/seeded-bugs.ts, chosen by SLUICE_SEEDED_BUG in test processes;
// production modules hold no switch). For each one this runs only the test files that must catch
// it, with the bug on, and counts it caught when at least one test fails. First, every run is made
// once WITHOUT any switch: it must pass, or a "catch" would prove nothing. Prints one line per bug
// and `N/N caught`; exits 1 on any miss. Not part of `npm test`. `-- <bug> …` runs only those bugs.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  GATEWAY_SEEDED_BUGS,
  type GatewaySeededBug,
} from '../packages/gateway/src/testing/seeded-bugs.js';
import {
  SEEDED_BUGS as WORKER_SEEDED_BUGS,
  type SeededBug as WorkerSeededBug,
} from '../packages/worker/src/testing/seeded-bugs.js';

// Worker bugs are injected by the worker's test hooks, gateway bugs by the gateway fixture's.
type SeededBug = WorkerSeededBug | GatewaySeededBug;
const SEEDED_BUGS: readonly SeededBug[] = [...WORKER_SEEDED_BUGS, ...GATEWAY_SEEDED_BUGS];

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** One vitest invocation: files of a package, optionally narrowed to matching test names. */
interface Run {
  pkg:
    | 'packages/worker'
    | 'packages/cli'
    | 'packages/gateway'
    | 'packages/client'
    | 'packages/runtime-valkey-streams';
  files: string[];
  testNamePattern?: string;
  /** Extra environment for the run (e.g. a smaller chaos soak). */
  env?: Record<string, string>;
}

const worker = (files: string[], testNamePattern?: string): Run => ({
  pkg: 'packages/worker',
  files: files.map((f) => `src/${f}`),
  ...(testNamePattern ? { testNamePattern } : {}),
});

const streams = (files: string[], testNamePattern?: string): Run => ({
  pkg: 'packages/runtime-valkey-streams',
  files: files.map((f) => `src/${f}`),
  ...(testNamePattern ? { testNamePattern } : {}),
});

const gateway = (files: string[], testNamePattern?: string): Run => ({
  pkg: 'packages/gateway',
  files: files.map((f) => `src/${f}`),
  ...(testNamePattern ? { testNamePattern } : {}),
});

/** Two gateways and two workers end to end (the client package's suites run the whole product). */
const client = (files: string[], testNamePattern?: string): Run => ({
  pkg: 'packages/client',
  files: files.map((f) => `test/${f}`),
  ...(testNamePattern ? { testNamePattern } : {}),
});

/** The chaos soak at 300 jobs: faults that meet, audited by the provider's ledger and the events. */
const chaosSoak: Run = {
  ...streams(['chaos-soak-loses-and-double-bills-nothing.test.ts']),
  env: { CHAOS_JOBS: '300' },
};

/** The tests that must turn red for each bug (see each test file's first comment). */
const CATCHERS: Record<SeededBug, Run[]> = {
  // A crash between the early ack and the outcome write loses the job: nobody gets it again.
  // (On Streams: the embedded runtime's ack is the outcome write itself, nothing to reorder.)
  'ack-before-terminal': [streams(['streams-crash-before-outcome-loses-no-job.test.ts'])],
  'asset-skip-owner-check': [
    worker(['assets/asset-writer.test.ts', 'assets/staging-sweeper.test.ts']),
    worker(['invariants/zombie-publishes-nothing.test.ts'], 'embedded'),
  ],
  'retry-ambiguous': [
    worker(['guard/decide-from-ledger.test.ts', 'invariants/unit-billed-once.test.ts']),
    chaosSoak,
  ],
  'version-fallback': [
    worker(['host/decide-delivery.test.ts', 'invariants/no-silent-version-fallback.test.ts']),
    streams(['no-silent-version-fallback.test.ts']),
  ],
  'pool-swallow-error': [worker(['attempt/pool.test.ts', 'invariants/no-swallowed-error.test.ts'])],
  'progress-after-terminal': [worker(['invariants/progress-before-terminal.test.ts'])],
  'admit-out-of-order': [streams(['worker/admission-order.test.ts'])],
  'renew-unowned': [
    worker(['invariants/renewal-checks-the-owner.test.ts']),
    streams(['renewal-checks-the-owner.test.ts', 'streams-zombie-writes-fenced.test.ts']),
  ],
  // A zombie's start + outcome taking the row as it is now lands over the worker that took over.
  'unfenced-write': [streams(['conformance.test.ts'], 'a zombie that never wrote'), chaosSoak],
  // A key without the scope watches a tenant's feed over SSE; the matrix covers every transport.
  'sse-skips-scope': [gateway(['auth/authz-matrix.test.ts'])],
  // A revoked key's SSE feed keeps delivering; the WebSocket one still ends.
  'revocation-keeps-sse': [gateway(['auth/streams-end-on-revocation.test.ts'])],
  // Retention's filter lets running and needs_review jobs through: their rows and blobs go.
  'retention-removes-live-jobs': [gateway(['retention/retention-never-removes-live-jobs.test.ts'])],
  // A burst through two gateways runs once per window, with the last input.
  'debounce-always-opens': [client(['flow/debounced-burst-runs-once-per-window.test.ts'])],
  // Two jobs of one singleton key run at once.
  'singleton-never-holds': [client(['flow/singleton-never-two-running.test.ts'], 'queue')],
  // A batch run holds more than maxSize inputs.
  'batch-ignores-max-size': [client(['flow/batch-never-loses-or-duplicates-an-input.test.ts'])],
  // A signal committed between the wait's check and its suspend strands the job: it never ends.
  'wait-check-then-suspend': [worker(['runtimes/embedded.test.ts'], 'no lost wakeup')],
  // The retried parent's start uses a new key: a second child appears.
  'child-key-per-attempt': [
    worker(['runtimes/embedded.test.ts'], 'starts the child exactly once'),
    worker(['invariants/child-started-once-across-a-crash.test.ts']),
  ],
  // A replayed token completion is accepted (200, not 409).
  'token-replay': [gateway(['waits/signals-and-tokens.test.ts'], 'completes its wait once')],
  // A rerun forgets the ledger: calls already answered (and billed) are sent again.
  'rerun-forgets-ledger': [client(['rerun-never-bills-a-completed-call-twice.test.ts'])],
  // A gateway SIGKILLed between a batch's progress and its commit: the next runner skips the batch.
  'bulk-progress-outside-batch': [streams(['bulk-resumes-after-gateway-sigkill.test.ts'])],
  'checkpoint-without-unit-key': [
    worker([
      'checkpoints/unit-checkpoints.test.ts',
      'invariants/checkpointed-unit-never-called-again.test.ts',
    ]),
  ],
};

interface Result {
  ok: boolean;
  failed: number;
  passed: number;
  failedNames: string[];
  seconds: number;
  error?: string;
}

const scratch = mkdtempSync(join(tmpdir(), 'sluice-seeded-bugs-'));

function vitest(run: Run, bug: SeededBug | undefined): Result {
  const out = join(scratch, `${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const args = ['vitest', 'run', ...run.files, '--reporter=json', `--outputFile=${out}`];
  if (run.testNamePattern) args.push('-t', run.testNamePattern);
  const env: NodeJS.ProcessEnv = { ...process.env, ...run.env };
  delete env.SLUICE_SEEDED_BUG;
  if (bug) env.SLUICE_SEEDED_BUG = bug;
  const started = Date.now();
  const child = spawnSync('npx', args, {
    cwd: join(root, run.pkg),
    env,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  let report: {
    numFailedTests: number;
    numPassedTests: number;
    testResults: { assertionResults: { fullName: string; status: string }[] }[];
  };
  try {
    report = JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    // No report: vitest itself failed (a file did not load). That is not a caught bug.
    const tail = `${child.stdout ?? ''}${child.stderr ?? ''}`.split('\n').slice(-15).join('\n');
    return { ok: false, failed: 0, passed: 0, failedNames: [], seconds, error: tail };
  }
  const failedNames = report.testResults.flatMap((f) =>
    f.assertionResults.filter((a) => a.status === 'failed').map((a) => a.fullName),
  );
  return {
    ok: child.status === 0,
    failed: report.numFailedTests,
    passed: report.numPassedTests,
    failedNames,
    seconds,
  };
}

const describeRun = (r: Run) =>
  `${
    r.env
      ? `${Object.entries(r.env)
          .map(([k, v]) => `${k}=${v} `)
          .join('')}`
      : ''
  }${r.files.map((f) => f.replace(/^(src|test)\//, '')).join(' ')}${r.testNamePattern ? ` -t "${r.testNamePattern}"` : ''}`;

const wanted = process.argv.slice(2).filter((a) => a !== '--');
for (const w of wanted) {
  if (!(SEEDED_BUGS as readonly string[]).includes(w)) {
    console.error(`unknown seeded bug "${w}" (known: ${SEEDED_BUGS.join(', ')})`);
    process.exit(2);
  }
}
const bugs = SEEDED_BUGS.filter((b) => wanted.length === 0 || wanted.includes(b));

// 1. Every run passes without a switch (once per distinct run).
const baselines = new Map<string, Run>();
for (const b of bugs) for (const r of CATCHERS[b]) baselines.set(describeRun(r), r);
let baselineOk = true;
for (const [name, run] of baselines) {
  const r = vitest(run, undefined);
  console.log(
    `baseline ${r.ok ? 'pass' : 'FAIL'}  ${name}  (${r.passed} passed, ${r.failed} failed, ${r.seconds} s)`,
  );
  if (!r.ok) {
    baselineOk = false;
    for (const n of r.failedNames) console.log(`    failed: ${n}`);
    if (r.error) console.log(r.error);
  }
}

// 2. Each bug turns at least one of its tests red.
let caught = 0;
for (const bug of bugs) {
  const results = CATCHERS[bug].map((run) => ({ run, r: vitest(run, bug) }));
  const failed = results.reduce((n, x) => n + x.r.failed, 0);
  const seconds = results.reduce((n, x) => n + x.r.seconds, 0);
  const broken = results.find((x) => x.r.error);
  const hit = failed > 0;
  if (hit) caught++;
  const first = results.flatMap((x) => x.r.failedNames)[0];
  console.log(
    `${hit ? 'caught' : 'MISSED'}  ${bug}  ${failed} failing test(s) in ${results.map((x) => describeRun(x.run)).join(' + ')}  (${seconds.toFixed(1)} s)${first ? `\n    e.g. ${first}` : ''}`,
  );
  if (broken) console.log(`    a run did not report: ${broken.r.error}`);
}

rmSync(scratch, { recursive: true, force: true });
console.log(`${caught}/${bugs.length} caught${baselineOk ? '' : ' (BASELINE FAILED: not valid)'}`);
process.exit(caught === bugs.length && baselineOk ? 0 : 1);
