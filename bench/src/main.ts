// `npm run bench [-- --quick] [-- --only drain,latency] [-- --rounds N]`: progress on stderr, the
// markdown table on stdout, every round in bench/results/latest.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runBench } from './run-bench.js';
import { DURABLE_ENGINES, FULL, QUICK } from './scenarios.js';

const DEFAULT_OUT = fileURLToPath(new URL('../results/latest.json', import.meta.url));

const HELP = `usage: npm run bench -- [--quick] [--only <ids>] [--rounds <n>] [--out <file>]
                           [--durable | --no-durable] [--engines <ids>]
  --quick         reduced suite for development, under 3 minutes: one scenario per row, 5,000-job
                  drains capped at 2 s, 3 s latency runs, 2 s submit, 256 MiB upload, 3 rounds
                  (full: every scenario, 6 s / 3 s drain caps, 5 rounds, under 20 minutes)
  --only <ids>    comma-separated scenario ids or prefixes (drain, io, latency, embedded, submit,
                  upload, watchers, fairness, limits, durable, drain.c64.p1, …), row numbers
                  (1–11), or "ceiling"
  --rounds <n>    override the number of interleaved rounds (full: 5, quick: 3)
  --out <file>    JSON output (default bench/results/latest.json)
  --durable       row 11, Sluice beside the durable engines (pg-boss, DBOS, Restate, Absurd):
                  on by default in the full run (its first 3 rounds), off in --quick;
                  --no-durable leaves it out; --only durable (or 11) runs it alone
  --engines <ids> row 11's engines, comma-separated (default: ${DURABLE_ENGINES.join(',')});
                  implies --durable`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string', multiple: true, default: [] },
      rounds: { type: 'string' },
      out: { type: 'string', default: DEFAULT_OUT },
      durable: { type: 'boolean' },
      engines: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
    allowNegative: true,
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const base = values.quick ? QUICK : FULL;
  const rounds = values.rounds === undefined ? base.rounds : Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error(`--rounds must be a positive integer`);
  const only = values.only
    .flatMap((o) => o.split(','))
    .map((o) => o.trim())
    .filter(Boolean);
  const engines = values.engines
    ?.split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const unknown = engines?.filter((e) => !(DURABLE_ENGINES as readonly string[]).includes(e));
  if (unknown?.length)
    throw new Error(
      `--engines: unknown ${unknown.join(', ')} (known: ${DURABLE_ENGINES.join(', ')})`,
    );
  const asksForDurable = only.some(
    (o) => o === 'durable' || o === '11' || o.startsWith('durable.'),
  );
  const durable = values.durable ?? (engines !== undefined || asksForDurable || base.durable);
  const { result, markdown } = await runBench({
    mode: values.quick ? 'quick' : 'full',
    size: {
      ...base,
      rounds,
      durable,
      ...(engines ? { durableEngines: engines } : {}),
    },
    only,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  mkdirSync(dirname(values.out), { recursive: true });
  writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(markdown);
  process.stderr.write(`\nwrote ${values.out}\n`);
  return result.rounds.some((r) => !r.ok) ? 1 : 0;
}

// Ctrl-C must still run the exit hooks that stop redis-server and drop the database.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
