// The embedded claim on D1: a read of the candidates (as the SQLite path's `pick`), then ONE
// UPDATE that starts them, fenced per row by the epoch and state the read saw and by the claim
// conditions again (due, lapsed or own lease, attempts left). No interactive transaction holds
// the rows in between: a candidate another claimer started meanwhile has a new epoch, so this
// UPDATE leaves it alone and the claim returns fewer jobs (never one job to two claimers).
// The UPDATE's RETURNING gives the new row; where it came from is the state the fence pinned.
import type { JobState } from '@sluice/contracts';
import { randomToken } from '@sluice/contracts';
import type { Candidate, ClaimedJob, ClaimOptions } from '../../write-model/claim-shared.js';
import { fairOrder, sqliteFairQueued, type FairCandidate } from '../../write-model/fair-queued.js';
import { SNAPSHOT_COLUMNS, toSnapshot, type SnapshotRow } from '../../write-model/snapshot-row.js';
import { d1All, type D1Like } from './d1-like.js';

const SERVED =
  'exists (select 1 from json_each(?1) s where s.value ->> 0 = kind and s.value ->> 1 = version)';
const RUNNING = `select id, state, epoch, priority, created_at from jobs where state = 'running'
  and (lease_until <= ?2 or (lease_owner = ?3 and id not in (select value from json_each(?5))))
  and ${SERVED} and attempts < max_attempts order by lease_until limit ?4`;
// One statement per served version, fair across tenants (fair-queued.ts).
const QUEUED = sqliteFairQueued(
  { kind: '?1', version: '?2', now: '?3', limit: '?4' },
  'j.id, j.state, j.epoch, j.priority, j.created_at, j.tenant_id',
);

// ?1: [[id, epoch, state, attemptId], …]; ?2 lease, ?3 owner, ?4 now, ?5 own, ?6 excluded ids.
const START = `update jobs set state = 'running', epoch = epoch + 1, attempts = attempts + 1,
  attempt_id = (select c.value ->> 3 from json_each(?1) c where c.value ->> 0 = jobs.id),
  lease_until = ?2, lease_owner = ?3, updated_at = ?4
where id in (select c.value ->> 0 from json_each(?1) c)
  and exists (select 1 from json_each(?1) c where c.value ->> 0 = jobs.id
    and c.value ->> 1 = jobs.epoch and c.value ->> 2 = jobs.state)
  and attempts < max_attempts
  and ((state = 'queued' and (run_after is null or run_after <= ?4))
    or (state = 'running' and (lease_until <= ?4
      or (lease_owner = ?5 and id not in (select value from json_each(?6))))))
returning ${SNAPSHOT_COLUMNS}`;

type D1Candidate = Candidate & { epoch: number };

export async function claimJobsD1(
  d1: D1Like,
  opts: ClaimOptions,
  at: string,
  lease: string,
  own: string | null,
): Promise<ClaimedJob[]> {
  const exclude = JSON.stringify(opts.exclude ?? []);
  const served = JSON.stringify(opts.versions.map((v) => [v.kind, v.version]));
  const picked = await d1All<D1Candidate>(d1, RUNNING, served, at, own, opts.limit, exclude);
  const room = opts.limit - picked.length;
  if (room > 0) {
    const queued: (D1Candidate & FairCandidate)[] = [];
    for (const v of opts.versions)
      queued.push(
        ...(await d1All<D1Candidate & FairCandidate>(d1, QUEUED, v.kind, v.version, at, room)),
      );
    picked.push(...fairOrder(queued).slice(0, room));
  }
  if (picked.length === 0) return [];
  const from = new Map(picked.map((p) => [p.id, p.state as JobState]));
  const claim = JSON.stringify(picked.map((p) => [p.id, Number(p.epoch), p.state, randomToken()]));
  const rows = await d1All<SnapshotRow>(d1, START, claim, lease, opts.owner, at, own, exclude);
  const byId = new Map(rows.map((r) => [r.id, r]));
  // In the order picked (running rows first, then claim order), as on SQLite.
  return picked.flatMap((p) => {
    const row = byId.get(p.id);
    return row ? [{ job: toSnapshot(row), from: from.get(p.id) as JobState }] : [];
  });
}

const UNCLAIM = `update jobs set state = 'queued', attempts = attempts - 1,
  lease_until = null, lease_owner = null, run_after = ?2, updated_at = ?3
where state = 'running' and exists (select 1 from json_each(?1) v
  where v.value ->> 0 = jobs.id and v.value ->> 1 = jobs.epoch)`;

/** `unclaimJobs` on D1: one statement, fenced per row by the epoch its claim set. */
export async function unclaimJobsD1(
  d1: D1Like,
  leases: readonly { jobId: string; epoch: number }[],
  due: string | null,
  at: string,
): Promise<number> {
  const r = await d1
    .prepare(UNCLAIM)
    .bind(JSON.stringify(leases.map((l) => [l.jobId, l.epoch])), due, at)
    .run();
  return Number(r.meta.changes ?? 0);
}
