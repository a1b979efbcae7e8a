// Admissions overlap (the host reads the next batch while the previous one's job rows load), but
// attempts start in the order their batches were read: a later batch whose row read comes back
// first must not run ahead of an earlier one, or a job read first (the higher-priority one, the
// older one) loses its place. The first batch's admission is held back through the test seam;
// the second batch, read meanwhile, must wait for it.
import { defineJob, formatJobId, isTerminalState } from '@sluice/contracts';
import { acceptJobs, getJobsByIds } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { defineHandler } from '@sluice/worker';
import { createStreamsRuntime } from './create-streams-runtime.js';
import { createWorker } from '@sluice/worker';
import { hooksFromEnv } from '@sluice/worker/conformance';
import { useStreamsFixture } from '../testing/streams-xp-suite.js';

const job = defineJob({
  kind: 'order.job',
  versions: { current: 'v1' },
  input: z.object({ n: z.number().int() }),
  output: z.object({ ok: z.boolean() }),
});

describeEachDialect('admission order', (ctx) => {
  const fx = useStreamsFixture();

  it('attempts start in read order even when a later batch is admitted first', async () => {
    const { database } = ctx();
    const ids = [formatJobId('v1'), formatJobId('v1')];
    const [first, second] = ids as [string, string];
    await acceptJobs(
      database,
      ids.map((id, n) => ({
        id,
        tenantId: 't1',
        kind: job.kind,
        version: 'v1',
        input: { n },
        inputHash: `h${n}`,
        maxAttempts: 1,
        outcome: { to: 'queued' as const },
      })),
    );
    await fx().dispatch(
      ids.map((jobId) => ({ jobId, kind: job.kind, version: 'v1', tenantId: 't1' })),
    );
    const started: string[] = [];
    const admitted: string[] = [];
    // The first batch's admission waits until the second batch is being admitted (a signal, not
    // a fixed delay: under load the second read may take longer than any delay picked here).
    let secondArrived!: () => void;
    const secondAdmitting = new Promise<void>((resolve) => (secondArrived = resolve));
    const handler = defineHandler(job, {
      prepare: () => [{ key: 'u', input: 0 }],
      execute: (_u, c) => {
        started.push(c.jobId);
        return 1;
      },
      finalize: () => ({ ok: true }),
    });
    const worker = createWorker({
      jobs: { [job.kind]: job },
      handlers: { [job.kind]: { v1: handler } },
      database,
      // One job per read: the two jobs come in two batches, the second read while the first
      // batch is still being admitted.
      concurrency: 1,
      readBatch: 1,
      sweepEveryMs: 0,
      metrics: { processMetrics: false },
      hooks: {
        ...hooksFromEnv(database),
        async beforeAdmit(deliveries) {
          const jobId = deliveries[0]?.pointer?.jobId;
          if (jobId === second) secondArrived();
          if (jobId === first)
            await Promise.race([secondAdmitting, new Promise((r) => setTimeout(r, 10_000))]);
          if (jobId) admitted.push(jobId);
        },
      },
      runtime: (c) => createStreamsRuntime({ ...c, redisUrl: fx().server.url, blockMs: 100 }),
    });
    await worker.start();
    try {
      await waitFor(
        async () =>
          [...(await getJobsByIds(database.db, ids)).values()].every((r) =>
            isTerminalState(r.state),
          ),
        { timeoutMs: 20_000, message: 'both jobs finished' },
      );
      // the seam did hold the first batch back: the second one's rows were read first
      expect(admitted).toEqual([second, first]);
      expect(started).toEqual([first, second]);
    } finally {
      await worker.stop({ deadlineMs: 2_000 });
    }
  });
});
