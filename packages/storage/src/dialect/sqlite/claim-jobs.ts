// The embedded claim on SQLite: the candidates read with cached prepared statements, then started
// one by one inside ONE immediate transaction (a single writer: nothing to skip, nobody to race
// inside it). The protocol and the claim order: write-model/claim-jobs.ts and fair-queued.ts.

import type SQLite from 'better-sqlite3';
import type { JobState } from '@sluice/contracts';
import { randomToken } from '@sluice/contracts';
import type { Db } from '../../database.js';
import {
  runningCandidates,
  type Candidate,
  type ClaimedJob,
  type ClaimOptions,
} from '../../write-model/claim-shared.js';
import { fairOrder, sqliteFairQueued, type FairCandidate } from '../../write-model/fair-queued.js';
import { SNAPSHOT_COLUMNS, toSnapshot, type SnapshotRow } from '../../write-model/snapshot-row.js';
import { immediately, prepared, withHandle } from './native-sqlite.js';

const SQLITE_SERVED =
  'exists (select 1 from json_each(@served) s where s.value ->> 0 = kind and s.value ->> 1 = version)';
const SQLITE_MINE = 'id not in (select value from json_each(@exclude))';
const SQLITE_RUNNING = runningCandidates(SQLITE_SERVED, '@now', '@own', '@limit', SQLITE_MINE);
// SQLite plans the OR above as a scan of every running row (each checked against the served
// list) even when `@own` is null: outside a restart's recovery, the lapsed-only text is used.
const SQLITE_LAPSED = runningCandidates(SQLITE_SERVED, '@now', null, '@limit', '');
const SQLITE_QUEUED = sqliteFairQueued(
  { kind: '@kind', version: '@version', now: '@now', limit: '@limit' },
  'j.id, j.state, j.priority, j.created_at, j.tenant_id',
);
const SQLITE_START = `update jobs set state = 'running', epoch = epoch + 1, attempts = attempts + 1,
  attempt_id = ?, lease_until = ?, lease_owner = ?, updated_at = ?
  where id = ? returning ${SNAPSHOT_COLUMNS}`;

export async function claimJobsSqlite(
  handle: SQLite.Database,
  db: Db,
  opts: ClaimOptions,
  at: string,
  lease: string,
  own: string | null,
): Promise<ClaimedJob[]> {
  const params = {
    served: JSON.stringify(opts.versions.map((v) => [v.kind, v.version])),
    now: at,
    own,
    limit: opts.limit,
    exclude: JSON.stringify(opts.exclude ?? []),
  };
  // Running rows first (lapsed or own), then the served versions' due rows in claim order.
  const pick = (limit: number) => {
    const out = (
      own === null
        ? prepared(handle, SQLITE_LAPSED).all({ served: params.served, now: at, limit })
        : prepared(handle, SQLITE_RUNNING).all({ ...params, limit })
    ) as Candidate[];
    const room = limit - out.length;
    if (room <= 0) return out;
    const queued = opts.versions.flatMap(
      (v) =>
        prepared(handle, SQLITE_QUEUED).all({
          kind: v.kind,
          version: v.version,
          now: at,
          limit: room,
        }) as FairCandidate[],
    );
    return [...out, ...fairOrder(queued).slice(0, room)];
  };
  // Look before taking the write lock: an empty queue (the common answer to a woken wait) must
  // not serialise every other writer behind a BEGIN IMMEDIATE. One row answers that: the full
  // pick (up to `limit` rows per tenant) runs once, under the lock. Not after a claim of these
  // versions that filled up (a backlog: the look would find a row, at the cost of its
  // statements on every claim of a drain); a backlog that ran out costs one empty lock.
  let full = backlogged.get(handle);
  if (!full) backlogged.set(handle, (full = new Set()));
  if (!full.has(params.served) && (await withHandle(db, () => pick(1))).length === 0) return [];
  const claimed = await immediately(db, handle, () => {
    const picked = pick(opts.limit);
    const start = prepared(handle, SQLITE_START);
    return picked.map((p) => {
      const row = start.get(randomToken(), lease, opts.owner, at, p.id) as SnapshotRow;
      return { job: toSnapshot(row), from: p.state as JobState };
    });
  });
  if (claimed.length === opts.limit) full.add(params.served);
  else full.delete(params.served);
  return claimed;
}

/** Per SQLite handle, the served lists (as bound) whose last claim filled up. */
const backlogged = new WeakMap<SQLite.Database, Set<string>>();

const SQLITE_UNCLAIM = `update jobs set state = 'queued', attempts = attempts - 1,
  lease_until = null, lease_owner = null, run_after = ?, updated_at = ?
  where id = ? and epoch = ? and state = 'running'`;

export function unclaimJobsSqlite(
  handle: SQLite.Database,
  db: Db,
  leases: readonly { jobId: string; epoch: number }[],
  due: string | null,
  at: string,
): Promise<number> {
  return immediately(db, handle, () => {
    const stmt = prepared(handle, SQLITE_UNCLAIM);
    return leases.reduce((n, l) => n + stmt.run(due, at, l.jobId, l.epoch).changes, 0);
  });
}
