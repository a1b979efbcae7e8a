// `jobs.detail`: everything about one job in one call — the job with its input and output, its
// attempts, unit checkpoints, provider-call ledger with bills, assets, links and event history.
// Read as six small indexed reads of one job (no transaction: a detail is a picture, and every
// part is append-mostly).

import { redactJobData, type JobDetail, type JobRegistry } from '@sluice/contracts';
import {
  assetsForJob,
  callsForJob,
  getJobById,
  getUnits,
  listEvents,
  type Db,
} from '@sluice/storage/portable';
import { toAssetView } from '../downloads/downloadables.js';
import { attemptsFrom, toLabelledView, toLedgerView } from './job-views.js';
import { unitKeyOf } from './rerun-plan.js';

/** The most events a detail carries (a job's history is bounded by its attempts and units). */
const MAX_DETAIL_EVENTS = 5000;

/**
 * The detail of a job of `tenantId` (null: any tenant, an admin), or undefined when absent. The
 * kind's `redact` paths in `jobs` are replaced in the input and output shown (the row is not).
 */
export async function readJobDetail(
  db: Db,
  tenantId: string | null,
  id: string,
  jobs: JobRegistry,
): Promise<JobDetail | undefined> {
  const job = await getJobById(db, id);
  if (!job || (tenantId !== null && job.tenantId !== tenantId)) return undefined;
  const [events, units, calls, assets] = await Promise.all([
    listEvents(db, id, 0, MAX_DETAIL_EVENTS),
    getUnits(db, id),
    callsForJob(db, id),
    assetsForJob(db, id),
  ]);
  const ledger = calls.map(toLedgerView);
  // A kind no longer defined has no paths: its job shows as stored.
  const redact = jobs[job.kind]?.redact;
  return {
    job: {
      ...toLabelledView(job, tenantId === null),
      input: redactJobData(redact, 'input', job.input),
      output: redactJobData(redact, 'output', job.output),
    },
    attempts: attemptsFrom(events),
    units: [...units.values()]
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.unitKey.localeCompare(b.unitKey))
      .map((u) => ({
        step: u.unitKey,
        unitKey: unitKeyOf(u.unitKey),
        result: u.result,
        assetKey: u.assetKey,
        epoch: u.epoch,
        createdAt: u.createdAt,
      })),
    calls: ledger,
    bills: { calls: ledger.length, billed: ledger.filter((c) => c.billed).length },
    assets: assets.flatMap((a) => toAssetView(a) ?? []),
    // Filled by the composition of jobs (children, waits) where a runtime records them.
    links: { parent: null, children: [], waits: [] },
    events,
  };
}
