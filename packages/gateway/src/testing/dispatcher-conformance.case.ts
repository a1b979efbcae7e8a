// The dispatcher conformance suite: what every runtime's gateway half must do, run by each
// runtime (the embedded dispatcher here, a runtime package over its own transport), on SQLite and
// PostgreSQL, through the real accept path. Cases a runtime cannot honour are skipped by its
// capability flags, never by its name, and the skip says which flag.
//
//   dispatcherConformance('my-queue', { open: (database) => openMyDispatcher(database) });

import type {
  Delivery,
  MessagePointer,
  RuntimeConsumer,
  RuntimeDispatcher,
} from '@sluice/contracts';
import { dueOutbox, getJobById, isoNow, type Db, type SluiceDatabase } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReconciler } from '../reconciler/create-reconciler.js';
import { errorOf, startGateway, testJobs, type GatewayFixture } from './fixture.js';

/** A runtime's dispatcher over one test database, and the consumer side to look at what it did. */
export interface DispatcherUnderTest {
  readonly dispatcher: RuntimeDispatcher<Db>;
  /**
   * Up to `max` pointers as the runtime's consumers would take them next (highest priority first
   * where the runtime prioritizes), each finished so it is not handed out again; `[]` after a
   * short wait when nothing is there.
   */
  take(max: number): Promise<MessagePointer[]>;
  close(): Promise<void>;
}

export interface DispatcherHarness {
  open(database: SluiceDatabase): Promise<DispatcherUnderTest>;
}

/**
 * A runtime's gateway half looked at through one of its own consumers (initialized here): `take`
 * reads as the consumers would and acknowledges what it read; `close` closes the consumer, then
 * the gateway half.
 */
export async function takenByConsumer<D extends Delivery>(
  gateway: { readonly dispatcher: RuntimeDispatcher<Db>; close(): Promise<void> },
  consumer: Pick<RuntimeConsumer<D>, 'init' | 'read' | 'ack' | 'close'>,
): Promise<DispatcherUnderTest> {
  await consumer.init();
  return {
    dispatcher: gateway.dispatcher,
    async take(max) {
      const read = await consumer.read(max);
      await consumer.ack(read);
      return read.flatMap((d) => (d.pointer ? [d.pointer] : []));
    },
    async close() {
      await consumer.close();
      await gateway.close();
    },
  };
}

/** Every (kind, version) of the suite's jobs: what a consumer under test reads. */
export const CONFORMANCE_VERSIONS = Object.values(testJobs).flatMap((job) => {
  const { current, next } = job.versions as { current: string; next?: string };
  return [current, next].flatMap((version) => (version ? [{ kind: job.kind, version }] : []));
});

const codeOf = (e: { data: unknown }) => (e.data as { code?: string } | undefined)?.code;

/** Takes until `ids` all came (or the time is up); returns every job id taken, in order. */
async function takeAll(dut: DispatcherUnderTest, ids: readonly string[], timeoutMs = 15_000) {
  const taken: string[] = [];
  await waitFor(
    async () => {
      for (const p of await dut.take(50)) taken.push(p.jobId);
      return ids.every((id) => taken.includes(id));
    },
    { timeoutMs, message: `jobs handed to the transport (${taken.length} of ${ids.length})` },
  ).catch(() => {});
  return taken;
}

export function dispatcherConformance(name: string, harness: DispatcherHarness): void {
  describeEachDialect(`dispatcher conformance: ${name}`, (ctx) => {
    let dut: DispatcherUnderTest;
    let f: GatewayFixture;
    beforeAll(async () => {
      dut = await harness.open(ctx().database);
      f = await startGateway(ctx(), { runtime: dut.dispatcher });
    });
    afterAll(async () => {
      await f?.close();
      await dut?.close();
    });

    it('outbox hand-off: every accepted job is handed over once, and no outbox row is left', async () => {
      const c = f.http(f.keyA);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push((await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: `h${i}` } })).id);
      const taken = await takeAll(dut, ids);
      expect(taken.filter((id) => ids.includes(id)).sort()).toEqual([...ids].sort());
      // The post-commit clean-up runs in the background: the rows go, none is left to re-send.
      await waitFor(
        async () => {
          const due = await dueOutbox(ctx().database.db, isoNow(Date.now() + 3_600_000));
          return ids.every((id) => !due.includes(id));
        },
        { timeoutMs: 10_000, message: 'outbox rows of handed-over jobs removed' },
      );
      expect((await dut.take(50)).filter((p) => ids.includes(p.jobId))).toEqual([]);
    });

    it('priorities: a higher-priority job is taken before an earlier backlog', async (t) => {
      if (!dut.dispatcher.capabilities.prioritizes) t.skip('without `prioritizes`: refused below');
      const c = f.http(f.keyA);
      const backlog: string[] = [];
      for (let i = 0; i < 3; i++)
        backlog.push(
          (await c.jobs.submit.mutate({ kind: 'demo.copy', input: { text: `b${i}` } })).id,
        );
      const urgent = await c.jobs.submit.mutate({
        kind: 'demo.copy',
        input: { text: 'u' },
        priority: 9,
      });
      const taken = await takeAll(dut, [...backlog, urgent.id]);
      expect(taken[0]).toBe(urgent.id);
    });

    it('cancel: a job cancelled before it was taken stays cancelled, and nothing hands it out again', async () => {
      const c = f.http(f.keyA);
      const job = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'cancel me' } });
      expect((await c.jobs.cancel.mutate({ id: job.id })).state).toBe('cancelled');
      // A transport may still carry the pointer it was given at submit (the worker skips a
      // cancelled row); what matters is the row, and that no reconciler pass sends it again.
      await dut.take(50);
      const reconciler = createReconciler({
        database: ctx().database,
        runtime: dut.dispatcher,
        quietMs: 0,
        leasePassedMs: 0,
        outboxGraceMs: 0,
      });
      try {
        await reconciler.tick(Date.now() + 60_000);
      } finally {
        await reconciler.close();
      }
      expect((await dut.take(50)).map((p) => p.jobId)).not.toContain(job.id);
      expect((await getJobById(ctx().database.db, job.id))?.state).toBe('cancelled');
    });

    it('redispatch: a job whose hand-off failed after commit is handed over by the reconciler', async (t) => {
      if (dut.dispatcher.capabilities.dispatchesInTransaction)
        t.skip('with `dispatchesInTransaction`: the hand-off is the commit, nothing to lose');
      // The same runtime, but its post-commit hand-off fails: the outbox row must carry the job.
      const failing: RuntimeDispatcher<Db> = {
        ...dut.dispatcher,
        dispatch: () => Promise.reject(new Error('transport down')),
      };
      const g = await startGateway(ctx(), { runtime: failing });
      let id: string;
      try {
        id = (await g.http(g.keyA).jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'r' } }))
          .id;
      } finally {
        await g.close();
      }
      expect((await dut.take(50)).map((p) => p.jobId)).not.toContain(id);
      const reconciler = createReconciler({ database: ctx().database, runtime: dut.dispatcher });
      try {
        await reconciler.tick(Date.now() + 60_000);
      } finally {
        await reconciler.close();
      }
      expect(await takeAll(dut, [id])).toContain(id);
    });

    const refusals = [
      ['prioritizes', { priority: 3 }, /priority/],
      ['delaysJobs', { delayMs: 60_000 }, /delay/],
    ] as const;
    for (const [flag, extra, says] of refusals) {
      it(`a missing capability refuses: without \`${flag}\` the submit is BAD_REQUEST saying so, writing nothing`, async (t) => {
        if (dut.dispatcher.capabilities[flag]) t.skip(`capable: \`${flag}\` is honoured`);
        const c = f.http(f.keyA);
        const before = await f.counts();
        const e = await errorOf(
          c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'x' }, ...extra }),
        );
        expect(codeOf(e)).toBe('BAD_REQUEST');
        expect(e.message).toMatch(says);
        const after = await f.counts();
        expect([after.jobs, after.events]).toEqual([before.jobs, before.events]);
      });
    }
  });
}
