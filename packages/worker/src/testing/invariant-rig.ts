// One runtime as the invariant cases (`*.case.ts` next to this file) see it: in-process
// consumers, worker processes (worker-child.ts, paid-worker-child.ts) on it, and the gateway's
// part where the transport is not the job database. The cases are written once; each runtime's
// thin test file passes its rig. What only one transport can show (who holds a delivery and for
// how long) is an optional member, checked where the rig has it.

import { formatJobId, type MessagePointer, type RuntimeConsumerFactory } from '@sluice/contracts';
import {
  addToOutbox,
  enqueue,
  insertJob,
  isoIn,
  removeFromOutbox,
  transitionJob,
  type DialectName,
  type Db,
  type SluiceDatabase,
} from '@sluice/storage';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from '@sluice/storage/testing';
import { afterAll, beforeAll, describe } from 'vitest';
import type { z } from 'zod';
import { createEmbeddedRuntime } from '../backends/create-embedded-runtime.js';
import { paidJob } from './paid-job.js';

/** A delivery the transport holds for a consumer, and how long since that consumer renewed it. */
export interface TransportClaim {
  consumer: string;
  idleMs: number;
}

export interface InvariantRig {
  /** Dispatch joins the accept transaction (a queue in the job database), or follows the commit. */
  readonly dispatchesInTransaction: boolean;
  /**
   * A pointer can name a version other than its job id's prefix (what a dispatcher that "fell
   * back" would send); false where the transport's codec refuses to carry one.
   */
  readonly carriesMisroutedPointers: boolean;
  /** Hands pointers to the transport; inside `tx` when it dispatches in the accept transaction. */
  dispatch(database: SluiceDatabase, pointers: readonly MessagePointer[], tx?: Db): Promise<void>;
  /** The consumer of an in-process worker on `database`, with short test timings. */
  consumer(database: SluiceDatabase): RuntimeConsumerFactory;
  /** What worker-child.ts / paid-worker-child.ts need in their environment to run on this runtime. */
  childEnv(): Record<string, string>;
  /** Deliveries of `kind` the transport still holds (queued or claimed, not finished). */
  outstanding(database: SluiceDatabase, kind: string): Promise<number>;
  /** The transport's own claims on deliveries of `kind`, where it tracks them apart from the database. */
  claims?(kind: string): Promise<TransportClaim[]>;
  /**
   * Sends due outbox rows back to the transport (the gateway's reconciler), where the transport
   * is not the job database; returns its stop. Runs for the whole suite.
   */
  reconcile?(database: SluiceDatabase): () => void;
  dispose(): Promise<void>;
}

/** The `xp.work` worker process; `childEnv()` puts it on the rig's runtime. */
export const XP_WORKER_CHILD = new URL('./worker-child.ts', import.meta.url);

/** One dialect (PostgreSQL when the machine has it), for the long cross-process cases. */
export const ONE_DIALECT: readonly DialectName[] = [
  TEST_DIALECTS.includes('postgres') ? 'postgres' : 'sqlite',
];

export interface RigContext extends TestDatabase {
  readonly rig: InvariantRig;
}

/**
 * `describe` once per dialect with a migrated database and this runtime's rig, both shared by the
 * suite. The cross-process cases of a runtime package pass one dialect where its run is long.
 */
export function describeOnRig(
  name: string,
  makeRig: () => Promise<InvariantRig>,
  dialects: readonly DialectName[],
  body: (ctx: () => RigContext) => void,
): void {
  for (const dialect of dialects) {
    describe(`${name} [${dialect}]`, () => {
      let test: TestDatabase | undefined;
      let rig: InvariantRig | undefined;
      let stopReconciler: (() => void) | undefined;
      beforeAll(async () => {
        [test, rig] = await Promise.all([createTestDatabase(dialect), makeRig()]);
        stopReconciler = rig.reconcile?.(test.database);
      });
      afterAll(async () => {
        stopReconciler?.();
        await rig?.dispose();
        await test?.dispose();
      }, 120_000);
      body(() => {
        if (!test || !rig) throw new Error('test database or rig not ready');
        return { ...test, rig };
      });
    });
  }
}

/** Jobs of `kind` the embedded queue still holds: queued or running rows (its queue is the database). */
export async function embeddedOutstanding(database: SluiceDatabase, kind: string): Promise<number> {
  const row = await database.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('kind', '=', kind)
    .where('state', 'in', ['queued', 'running'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The embedded runtime: its queue rows live in the job database and join the accept transaction. */
export function embeddedRig(): Promise<InvariantRig> {
  return Promise.resolve({
    dispatchesInTransaction: true,
    carriesMisroutedPointers: true,
    dispatch: (database, pointers, tx) => enqueue(tx ?? database.db, pointers),
    consumer: (database) => (c) =>
      createEmbeddedRuntime({ database, ...c, pollMs: 20, blockMs: 100 }),
    childEnv: () => ({}),
    outstanding: embeddedOutstanding,
    dispose: () => Promise.resolve(),
  });
}

/** Due after a grace, as the reconciler holds fresh accepts (see `submitVia`). */
const OUTBOX_GRACE_MS = 2_000;

/**
 * Inserts jobs the way the accept path does: row and dispatch transition in one transaction with
 * the rig's dispatch when it joins it; otherwise an outbox row in that transaction, the dispatch
 * after the commit, then the row goes (a reconciler pass in between must not send a job twice).
 */
export async function submitVia(
  rig: InvariantRig,
  database: SluiceDatabase,
  jobs: readonly { kind: string; input: unknown; inputHash?: string; maxAttempts: number }[],
): Promise<string[]> {
  const pointers = jobs.map((j) => ({
    jobId: formatJobId('v1'),
    kind: j.kind,
    version: 'v1',
    tenantId: 'acme',
  }));
  await database.transaction(async (tx) => {
    for (const [i, p] of pointers.entries()) {
      const j = jobs[i] as (typeof jobs)[number];
      await insertJob(tx, {
        id: p.jobId,
        tenantId: p.tenantId,
        kind: p.kind,
        version: p.version,
        input: j.input,
        inputHash: j.inputHash ?? p.jobId,
        maxAttempts: j.maxAttempts,
      });
      await transitionJob(tx, { id: p.jobId, event: 'dispatch' });
    }
    if (rig.dispatchesInTransaction) await rig.dispatch(database, pointers, tx);
    else
      await addToOutbox(
        tx,
        pointers.map((p) => p.jobId),
        isoIn(OUTBOX_GRACE_MS),
      );
  });
  if (!rig.dispatchesInTransaction) {
    await rig.dispatch(database, pointers);
    await removeFromOutbox(
      database.db,
      pointers.map((p) => p.jobId),
    );
  }
  return pointers.map((p) => p.jobId);
}

/** `xp.paid` jobs (paid-job.ts) for the paid worker child. */
export function submitPaidJobsVia(
  rig: InvariantRig,
  database: SluiceDatabase,
  inputs: readonly z.input<typeof paidJob.input>[],
): Promise<string[]> {
  return submitVia(
    rig,
    database,
    inputs.map((input) => ({
      kind: paidJob.kind,
      input,
      maxAttempts: paidJob.maxAttempts,
    })),
  );
}

/** `count` jobs of the worker child's `xp.work` kind (inputs `{ n }`, 5 attempts). */
export function submitXpJobsVia(
  rig: InvariantRig,
  database: SluiceDatabase,
  count: number,
): Promise<string[]> {
  return submitVia(
    rig,
    database,
    Array.from({ length: count }, (_, n) => ({
      kind: 'xp.work',
      input: { n },
      inputHash: `xp${n}`,
      maxAttempts: 5,
    })),
  );
}
