// `npm run chaos`: the chaos soak at full size (10,000 jobs; `-- --jobs N` for another size;
// `-- --runtime nats` for the NATS JetStream runtime's soak, Valkey Streams by default).
// It is the runtime package's chaos-soak test run with CHAOS_JOBS set, so the PR tier that
// `npm test` runs (500 jobs) and this run are the same code; the test prints the table and fails,
// so this exits non-zero, when a required zero is not zero.

import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const at = args.indexOf('--jobs');
const jobs = at >= 0 ? Number(args[at + 1]) : 10_000;
const packages: Record<string, string> = {
  'valkey-streams': 'packages/runtime-valkey-streams',
  nats: 'packages/runtime-nats',
};
const r = args.indexOf('--runtime');
const runtime = r >= 0 ? String(args[r + 1]) : 'valkey-streams';
if (!Number.isInteger(jobs) || jobs < 1 || !Object.hasOwn(packages, runtime)) {
  console.error('usage: npm run chaos [-- --jobs N] [--runtime valkey-streams|nats]');
  process.exit(2);
}
const run = spawnSync(
  'npx',
  ['vitest', 'run', 'src/chaos-soak-loses-and-double-bills-nothing.test.ts'],
  {
    cwd: join(root, packages[runtime] as string),
    env: { ...process.env, CHAOS_JOBS: String(jobs) },
    stdio: 'inherit',
  },
);
process.exit(run.status ?? 1);
