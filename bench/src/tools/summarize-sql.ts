// Prints the statement tallies BENCH_SQL_STATS wrote (statements per job or per request, by
// statement shape, with the time spent in each).
//   npx tsx src/tools/summarize-sql.ts <dir | sql-*.json> [--top 15]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

interface Tally {
  pid: number;
  units: number;
  statements: number;
  perUnit: number;
  prepares: { count: number; ms: number };
  rows: { sql: string; count: number; perUnit: number; ms: number }[];
}

const target = process.argv[2];
if (!target) throw new Error('usage: summarize-sql <dir | file> [--top n]');
const top = Number(process.argv[process.argv.indexOf('--top') + 1]) || 15;
const files = statSync(target).isDirectory()
  ? readdirSync(target)
      .filter((f) => f.startsWith('sql-') && f.endsWith('.json'))
      .map((f) => join(target, f))
  : [target];
for (const file of files) {
  const t = JSON.parse(readFileSync(file, 'utf8')) as Tally;
  console.log(
    `== ${file}: ${t.statements} statements for ${t.units} units = ${t.perUnit.toFixed(2)} per unit; ` +
      `${t.prepares.count} prepared (${t.prepares.ms.toFixed(0)} ms)`,
  );
  for (const r of t.rows.slice(0, top))
    console.log(
      `${String(r.count).padStart(7)} ${r.perUnit.toFixed(2).padStart(6)}/unit ${r.ms.toFixed(0).padStart(7)} ms  ${r.sql}`,
    );
}
