// How the operator commands print jobs: one tab-separated line per job, or JSON with --json.

import type { JobView } from '@sluice/contracts';

export function jobLine(job: JobView): string {
  const reason = job.reason ? `\t${job.reason}` : '';
  return `${job.id}\t${job.kind}@${job.version}\t${job.state}\tattempt ${job.attempts}/${job.maxAttempts}\tupdated ${job.updatedAt}${reason}`;
}

export function printJobs(
  out: (line: string) => void,
  page: { items: readonly JobView[]; nextCursor: string | null },
  json: boolean | undefined,
  empty: string,
): void {
  if (json) {
    out(JSON.stringify(page));
    return;
  }
  if (page.items.length === 0) out(empty);
  for (const job of page.items) out(jobLine(job));
  if (page.nextCursor) out(`more: --cursor ${page.nextCursor}`);
}
