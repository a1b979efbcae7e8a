// Retry-safety figures for `/metrics`, read from the database when scraped (every gateway
// replica shows the same truth): provider calls by class and outcome (the ledger), jobs waiting
// for a person, and fail-closed refusals (calls refused before sending: each one an alert).

import { countCalls, type Db } from '@sluice/storage';

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export async function renderRetrySafetyMetrics(db: Db): Promise<string[]> {
  const [calls, review] = await Promise.all([
    countCalls(db),
    db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('state', '=', 'needs_review')
      .executeTakeFirst(),
  ]);
  const out: string[] = [
    '# HELP sluice_provider_calls Provider-call ledger rows by declaration class and outcome.',
    '# TYPE sluice_provider_calls gauge',
  ];
  let refused = 0;
  for (const c of [...calls].sort((a, b) =>
    `${a.callClass}/${a.outcome}`.localeCompare(`${b.callClass}/${b.outcome}`),
  )) {
    if (c.outcome === 'refused') refused += c.n;
    out.push(
      `sluice_provider_calls{class="${escapeLabel(c.callClass)}",outcome="${escapeLabel(c.outcome)}"} ${c.n}`,
    );
  }
  out.push(
    '# HELP sluice_jobs_in_review Jobs parked in needs_review, waiting for a person.',
    '# TYPE sluice_jobs_in_review gauge',
    `sluice_jobs_in_review ${Number(review?.n ?? 0)}`,
    '# HELP sluice_provider_calls_refused Provider calls refused before sending (fail-closed).',
    '# TYPE sluice_provider_calls_refused gauge',
    `sluice_provider_calls_refused ${refused}`,
  );
  return out;
}
