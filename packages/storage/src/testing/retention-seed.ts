// Jobs as retention finds them, for the retention suites (SQLite, PostgreSQL, D1): a job in any
// state, ended `ageMs` ago, with everything that can hang off it — two event rows, two unit
// checkpoints, a provider-call ledger row, an ownership row naming a staging key, a published
// asset with its bytes, an outbox row, a flow-control key and hold, and uploads (shared or its own) with their bytes. Plus the
// counts and checks the suites assert with. Runtime-neutral: no Node module.
import { formatJobId, randomToken, type JobState } from '@sluice/contracts';
import { sql } from 'kysely';
import type { BlobStore } from '../blobs/blob-store.js';
import { stagingKey } from '../blobs/staging-key.js';
import type { Db } from '../database.js';
import { isoNow, toJson } from '../json.js';
import { newJobRow } from '../repos/job-row.js';

export interface SeedJob {
  tenant: string;
  kind?: string;
  state: JobState;
  /** How long ago the job entered its state. */
  ageMs: number;
  now: number;
  hold?: boolean;
  /** Files it references (created by `seedFile`). */
  fileIds?: string[];
  /** With events, units, a ledger row, an ownership row, an asset and its bytes (default true). */
  full?: boolean;
  idempotencyKey?: string;
}

const put = (blobs: BlobStore, key: string, text: string) =>
  blobs.put(key, new Blob([text]).stream(), { contentType: 'text/plain' });

export async function seedFile(db: Db, blobs: BlobStore, tenant: string, now: number) {
  const id = `f_${randomToken().slice(0, 26).padEnd(26, 'a')}`;
  const key = `t/${tenant}/uploads/${id}`;
  const stored = await put(blobs, key, `upload ${id}`);
  await db
    .insertInto('files')
    .values({
      id,
      tenant_id: tenant,
      blob_key: key,
      size: stored.size,
      sha256: stored.sha256,
      content_type: 'text/plain',
      filename: null,
      created_at: isoNow(now - 100 * 86_400_000),
      expires_at: null,
    })
    .execute();
  return { id, key };
}

/** A job as described, with what hangs off it; returns its id and the blob keys it owns. */
export async function seedJob(db: Db, blobs: BlobStore, s: SeedJob) {
  const id = formatJobId('v1');
  const at = isoNow(s.now - s.ageMs);
  const kind = s.kind ?? 'demo.keep';
  const ended =
    s.state === 'succeeded' ||
    s.state === 'failed' ||
    s.state === 'cancelled' ||
    s.state === 'stale';
  await db
    .insertInto('jobs')
    .values({
      ...newJobRow(
        {
          id,
          tenantId: s.tenant,
          kind,
          version: 'v1',
          input: { n: 1 },
          inputHash: 'h',
          idempotencyKey: s.idempotencyKey ?? null,
          fileIds: s.fileIds ?? [],
          maxAttempts: 3,
          hold: s.hold,
          // Labels fill `job_tags`/`job_meta` (by trigger): retention removes them with the job.
          ...(s.full === false ? {} : { tags: ['seeded'], metadata: { seed: 1 } }),
        },
        isoNow(s.now - s.ageMs - 60_000),
      ),
      state: s.state,
      last_seq: 3,
      updated_at: at,
      finished_at: ended ? at : null,
      output: s.state === 'succeeded' ? toJson({ ok: true }) : null,
    })
    .execute();
  const keys: string[] = [];
  if (s.full === false) return { id, keys };
  await db
    .insertInto('job_events')
    .values(
      [1, 3].map((seq) => ({
        job_id: id,
        tenant_id: s.tenant,
        kind,
        seq,
        seq_end: seq === 1 ? 2 : null,
        type: 'state',
        payload: toJson({ jobId: id, seq, type: 'state', at }),
        created_at: at,
      })),
    )
    .execute();
  const finalKey = `t/${s.tenant}/j/${id}/assets/u0/out.txt`;
  const staging = stagingKey(s.tenant, id, 'a1', randomToken().slice(0, 8));
  await put(blobs, finalKey, `asset of ${id}`);
  await put(blobs, staging, `staging of ${id}`);
  keys.push(finalKey, staging);
  await db
    .insertInto('units')
    .values([
      {
        job_id: id,
        unit_key: 'u0',
        result: toJson(null),
        asset_key: finalKey,
        attempt_id: 'a1',
        epoch: 1,
        created_at: at,
      },
      {
        job_id: id,
        unit_key: 'u1',
        result: toJson({ n: 1 }),
        asset_key: null,
        attempt_id: 'a1',
        epoch: 1,
        created_at: at,
      },
    ])
    .execute();
  await db
    .insertInto('provider_calls')
    .values({
      id: `pc_${randomToken()}`,
      job_id: id,
      tenant_id: s.tenant,
      unit_key: 'u1',
      call_name: 'tts',
      attempt_id: 'a1',
      epoch: 1,
      attempt: 1,
      stage: 'execute',
      provider: 'acme',
      modality: 'speech',
      call_class: 'retry-safe',
      request_key: null,
      external_id: null,
      outcome: 'succeeded',
      response: toJson({ ok: 1 }),
      error: null,
      authorised_by: null,
      note: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  await db
    .insertInto('asset_owners')
    .values({
      final_key: finalKey,
      job_id: id,
      unit_key: 'u0',
      name: 'out.txt',
      attempt_id: 'a1',
      epoch: 1,
      staging_key: staging,
      created_at: at,
    })
    .execute();
  await db
    .insertInto('assets')
    .values({
      final_key: finalKey,
      job_id: id,
      tenant_id: s.tenant,
      unit_key: 'u0',
      name: 'out.txt',
      size: 20,
      sha256: 'x',
      content_type: 'text/plain',
      attempt_id: 'a1',
      created_at: at,
    })
    .execute();
  await db.insertInto('outbox').values({ job_id: id, due_at: at, created_at: at }).execute();
  // Flow control: a key whose current job this is, and — for an ended job that was held for a
  // singleton key (cancelled while it waited) — the queue row the release pass would drop.
  await db
    .insertInto('flow_keys')
    .values({
      tenant_id: s.tenant,
      kind,
      flow: 'singleton',
      key: id,
      job_id: id,
      opened_at: at,
      closes_at: null,
      size: 1,
      updated_at: at,
    })
    .execute();
  if (ended && !s.hold)
    await db
      .insertInto('flow_waiting')
      .values({ job_id: id, tenant_id: s.tenant, kind, key: id, created_at: at })
      .execute();
  return { id, keys };
}

export const RETENTION_SUITE_TABLES = [
  'jobs',
  'job_events',
  'units',
  'provider_calls',
  'asset_owners',
  'assets',
  'outbox',
  'files',
  'job_files',
  'flow_keys',
  'flow_waiting',
  'job_tags',
  'job_meta',
  'retention_marks',
  'retention_blobs',
] as const;

/** Rows of every table retention touches, for these tenants' jobs and files (and the queues). */
export type RowCounts = Record<(typeof RETENTION_SUITE_TABLES)[number], number>;

export async function countRows(db: Db, tenants: readonly string[]): Promise<RowCounts> {
  const t = sql.join(tenants.map((x) => sql.lit(x)));
  const ofJobs = sql`(select id from jobs where tenant_id in (${t}))`;
  const r = await sql<Record<string, number | string>>`select
    (select count(*) from jobs where tenant_id in (${t})) as jobs,
    (select count(*) from job_events where tenant_id in (${t})) as job_events,
    (select count(*) from units where job_id in ${ofJobs}) as units,
    (select count(*) from provider_calls where tenant_id in (${t})) as provider_calls,
    (select count(*) from asset_owners where job_id in ${ofJobs}) as asset_owners,
    (select count(*) from assets where tenant_id in (${t})) as assets,
    (select count(*) from outbox where job_id in ${ofJobs}) as outbox,
    (select count(*) from files where tenant_id in (${t})) as files,
    (select count(*) from job_files where job_id in ${ofJobs}) as job_files,
    (select count(*) from flow_keys where tenant_id in (${t})) as flow_keys,
    (select count(*) from flow_waiting where tenant_id in (${t})) as flow_waiting,
    (select count(*) from job_tags where tenant_id in (${t})) as job_tags,
    (select count(*) from job_meta where tenant_id in (${t})) as job_meta,
    (select count(*) from retention_marks) as retention_marks,
    (select count(*) from retention_blobs) as retention_blobs`.execute(db);
  const row = r.rows[0] ?? {};
  return Object.fromEntries(
    RETENTION_SUITE_TABLES.map((k) => [k, Number(row[k] ?? 0)]),
  ) as RowCounts;
}

/** Every blob key of these tenants (uploads, assets, staging, archives). */
export async function blobKeys(blobs: BlobStore, tenants: readonly string[]): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const tenant of tenants)
    for (const prefix of [`t/${tenant}/`, `staging/t/${tenant}/`, `archive/${tenant}/`])
      for await (const key of blobs.list(prefix)) keys.add(key);
  return keys;
}

/**
 * The two promises of the removal order: no row names bytes that are gone (`dangling`), and
 * every stored blob is named by a row or queued for deletion (`unknown` lists those that are
 * neither). Archives are records, not owned bytes: left out.
 */
export async function blobIntegrity(db: Db, blobs: BlobStore, tenants: readonly string[]) {
  const stored = await blobKeys(blobs, tenants);
  const named = await sql<{ key: string }>`select final_key as key from assets
    union select blob_key from files union select final_key from asset_owners
    union select staging_key from asset_owners where staging_key is not null`.execute(db);
  const mustExist = await sql<{ key: string }>`select final_key as key from assets
    union select blob_key from files`.execute(db);
  const queued = await sql<{ key: string }>`select key from retention_blobs`.execute(db);
  const known = new Set([...named.rows, ...queued.rows].map((r) => r.key));
  const inTenants = (k: string) => tenants.some((t) => k.includes(`t/${t}/`));
  return {
    dangling: mustExist.rows.map((r) => r.key).filter((k) => inTenants(k) && !stored.has(k)),
    unknown: [...stored].filter((k) => !k.startsWith('archive/') && !known.has(k)),
    queued: queued.rows.length,
  };
}
