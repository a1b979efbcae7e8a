// Dev tool: how a Streams + PostgreSQL drain scales with worker processes, for docs/capacity.md.
// Row 1's drain (20,000 prefilled `bench.noop` jobs, the same harness, adapter, accounting and
// end-state check as `npm run bench`) with Sluice Streams alone, at concurrency 64 per process
// and 1, 2 and 4 processes, interleaved over <rounds> rounds. The cap is raised to 60 s so every
// shape drains all 20,000 jobs (the suite's 6 s cap exists for its time budget, not for this).
//
//   npx tsx src/tools/drain-scale.ts [rounds=3] [concurrency=64]
// Writes bench/results/<date>-drain-scale.json (the suite's schema) and prints its table.
import { mkdirSync, writeFileSync } from 'node:fs';
import { runBench } from '../run-bench.js';
import { FULL } from '../scenarios.js';
import { sluiceStreams } from '../sluice/streams.js';

// Ctrl-C must still run the exit hooks that stop redis-server and drop the database (as main.ts).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

const [roundsArg = '3', concurrencyArg = '64'] = process.argv.slice(2);
const rounds = Number(roundsArg);
const concurrency = Number(concurrencyArg);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('rounds: a positive integer');
if (!Number.isInteger(concurrency) || concurrency < 1)
  throw new Error('concurrency: a positive integer');

const { result, markdown } = await runBench({
  mode: 'full',
  size: {
    ...FULL,
    drainShapes: [
      [concurrency, 1],
      [concurrency, 2],
      [concurrency, 4],
    ],
    drainCapSeconds: 60,
    rounds,
    durable: false,
  },
  only: ['drain'],
  adapters: [sluiceStreams],
  log: (line) => process.stderr.write(`${line}\n`),
});
const date = new Date().toISOString().slice(0, 10);
const dir = new URL('../../results/', import.meta.url);
mkdirSync(dir, { recursive: true });
writeFileSync(new URL(`${date}-drain-scale.json`, dir), `${JSON.stringify(result, null, 2)}\n`);
console.log(markdown);
process.exit(0);
