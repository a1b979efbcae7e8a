// Shared steps of the workerd tests: a queued job in D1, waiting for an instance's status, the
// job's stored events, and the fake provider's own bill count (its admin API, over loopback).
import { formatJobId, type MessagePointer } from '@sluice/contracts';
import {
  acceptJobs,
  d1All,
  getJobById,
  listEvents,
  migrate,
  openD1Database,
} from '@sluice/storage/d1';
import { inject } from 'vitest';
import { bindings } from './bindings.js';
import { TEST_TABLES, testJob } from './test-job.js';

export const database = openD1Database(bindings.DB);
export const providerUrl = (): string => inject('providerUrl');

export async function prepareDatabase(): Promise<void> {
  await migrate(database);
  for (const sql of TEST_TABLES) await d1All(bindings.DB, sql);
}

export type TestInput = {
  units: number;
  call?: boolean;
  fault?: 'commit-then-drop' | 'http-5xx';
  gateUnit?: string;
  failUnit?: string;
  padBytes?: number;
  innerStep?: string;
  asyncCall?: boolean;
  limitedCall?: boolean;
  writeAsset?: boolean;
  gateAssetBody?: boolean;
  progress?: number;
};

/**
 * A job accepted and queued in D1, as the gateway writes it; returns its pointer. With `runAt`:
 * written `scheduled` instead, its pointer carrying the due time (a `delaysInRun` dispatch).
 */
export async function queuedJob(
  version: string,
  input: TestInput,
  runAt?: string,
): Promise<MessagePointer> {
  const id = formatJobId(version);
  const pointer: MessagePointer = { jobId: id, kind: testJob.kind, version, tenantId: 'acme' };
  if (runAt !== undefined) pointer.runAt = runAt;
  const full = { providerUrl: providerUrl(), call: false, progress: 0, ...input };
  const written = await acceptJobs(database, [
    {
      id,
      tenantId: 'acme',
      kind: testJob.kind,
      version,
      input: full,
      inputHash: id,
      maxAttempts: 3,
      outcome: runAt === undefined ? { to: 'queued' } : { to: 'scheduled', runAt },
    },
  ]);
  if (!written.inserted.has(id)) throw new Error('job not written');
  return pointer;
}

type Instance = Awaited<ReturnType<typeof bindings.WF_V1.get>>;
type Status = Awaited<ReturnType<Instance['status']>>;

export async function waitForStatus(
  binding: typeof bindings.WF_V1,
  id: string,
  wanted: readonly string[],
  timeoutMs = 30_000,
): Promise<Status> {
  const deadline = Date.now() + timeoutMs;
  let last: Status | undefined;
  while (Date.now() < deadline) {
    last = await (await binding.get(id)).status();
    if (wanted.includes(last.status)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`instance ${id} still ${last?.status ?? 'unknown'} (wanted ${wanted.join('/')})`);
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export const jobRow = (id: string) => getJobById(database.db, id);
export const eventsOf = (id: string) => listEvents(database.db, id);

/** Rows of `test_exec`: how often each unit's execute actually ran, by unit key. */
export async function executions(jobId: string): Promise<Record<string, number>> {
  const rows = await d1All<{ unit_key: string; n: number }>(
    bindings.DB,
    'select unit_key, count(*) as n from test_exec where job_id = ? group by unit_key',
    jobId,
  );
  return Object.fromEntries(rows.map((x) => [x.unit_key, Number(x.n)]));
}

async function count(sql: string, ...values: unknown[]): Promise<number> {
  const [row] = await d1All<{ n: number }>(bindings.DB, sql, ...values);
  return Number(row?.n ?? 0);
}

export async function runsOf(jobId: string): Promise<number> {
  return count('select count(*) as n from test_runs where instance_id = ?', jobId);
}

export async function ledgerRows(jobId: string): Promise<number> {
  return count('select count(*) as n from provider_calls where job_id = ?', jobId);
}

/** The fake provider's own record: bills and requests per unit of a job. */
export async function providerBills(
  jobId: string,
): Promise<Record<string, { billed: number; requests: number }>> {
  const res = await fetch(`${providerUrl()}/admin/summary`);
  const rows = (await res.json()) as {
    jobId: string;
    unitKey: string;
    billed: number;
    requests: number;
  }[];
  return Object.fromEntries(
    rows
      .filter((r) => r.jobId === jobId)
      .map((r) => [r.unitKey, { billed: r.billed, requests: r.requests }]),
  );
}

export async function openGate(jobId: string, mode: 'open' | 'fail-once' = 'open'): Promise<void> {
  await d1All(bindings.DB, 'insert into test_gate (job_id, mode) values (?, ?)', jobId, mode);
}

export async function deadLetters(): Promise<{ jobId: string; reason: string; detail: string }[]> {
  const rows = await d1All<{ body: string }>(bindings.DB, 'select body from test_dlq');
  return rows.map((r) => JSON.parse(r.body) as { jobId: string; reason: string; detail: string });
}

/** Arms the fake provider's fault rules (its admin API). */
export async function armFaults(rules: unknown[]): Promise<void> {
  const res = await fetch(`${providerUrl()}/admin/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(rules),
  });
  if (!res.ok) throw new Error(`fault rules refused: ${res.status} ${await res.text()}`);
}
