// Catches a first delivery started from the row its pointer carries (no row read) that acts on a
// snapshot gone stale: a cancel that landed between the XADD and the handler's first write, or a
// job re-dispatched under a newer epoch, must leave the early attempt writing and billing
// nothing (its first write is fenced; the guard makes that write before it sends). Also: an
// input too large to carry and an old pointer (no format field) take the row read and run.
// Real Redis and PostgreSQL; the provider is the testkit's fake, which counts what it billed.
// Entries go out through the fixture's raw XADD: exactly the pointer each case builds.

import { formatJobId, type Delivery, type MessagePointer } from '@sluice/contracts';
import {
  acceptedSnapshot,
  insertAcceptedJobs,
  listEvents,
  transitionJob,
  type AcceptedJob,
} from '@sluice/storage';
import { startFakeProvider, waitFor, type FakeProvider } from '@sluice/testkit';
import {
  jobRows,
  paidHandler,
  paidJob,
  startTestWorker,
  type ConformanceHarness,
} from '@sluice/worker/conformance';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createStreamsHarness, type StreamsHarness } from './testing/streams-harness.js';

let h: StreamsHarness;
let provider: FakeProvider;

beforeAll(async () => {
  [h, provider] = await Promise.all([createStreamsHarness('postgres'), startFakeProvider()]);
}, 60_000);
afterAll(async () => {
  await provider?.[Symbol.asyncDispose]();
  await h?.dispose();
});

/** Accepts one paid job as the gateway does and returns the pointer it would XADD. */
async function accept(
  input: Record<string, unknown>,
  withSnapshot = true,
): Promise<MessagePointer> {
  const job: AcceptedJob = {
    id: formatJobId('v1'),
    tenantId: 'acme',
    kind: paidJob.kind,
    version: 'v1',
    input,
    inputHash: `h-${Math.random()}`,
    maxAttempts: 5,
    outcome: { to: 'queued' },
  };
  const written = await h.database.transaction((tx) => insertAcceptedJobs(tx, [job]));
  const at = written.events[0]?.event.at as string;
  const snapshot = withSnapshot ? acceptedSnapshot(job, at) : undefined;
  const { id: jobId, kind, version, tenantId } = job;
  return { jobId, kind, version, tenantId, ...(snapshot ? { snapshot } : {}) };
}

function worker(
  name: string,
  beforeAdmit?: (deliveries: readonly Delivery[]) => Promise<void>,
): { w: ReturnType<typeof startTestWorker>; executed: string[] } {
  const executed: string[] = [];
  const handler = paidHandler({
    providerUrl: provider.url,
    workerId: name,
    log: (line) => executed.push(line),
  });
  const w = startTestWorker(
    h as ConformanceHarness,
    { [paidJob.kind]: { v1: handler } },
    { workerId: name, ...(beforeAdmit ? { hooks: { beforeAdmit } } : {}) },
    onTestFinished,
  );
  return { w, executed };
}

const billed = (jobId: string) => provider.billedCount({ jobId });
const ledgerRows = (jobId: string) =>
  h.database.db
    .selectFrom('provider_calls')
    .select(['epoch', 'attempt_id'])
    .where('job_id', '=', jobId)
    .execute();
const stateOf = async (jobId: string) => (await jobRows(h, [jobId]))[0]?.state;

describe('a first delivery starts from the row its pointer carries, fenced', () => {
  it('runs once without reading the row when nothing happened since the accept', async () => {
    const p = await accept({ call: 'sync' });
    expect(p.snapshot?.inputJson).toBeDefined();
    const { w } = worker('fresh');
    await w.start();
    await h.fixture.dispatch([p]);
    await waitFor(async () => (await stateOf(p.jobId)) === 'succeeded', { message: 'succeeded' });
    expect(w.metrics().admittedFromPointer).toBe(1);
    expect(w.metrics().lostLeases).toBe(0);
    expect(await billed(p.jobId)).toBe(1);
  });

  it('a cancel racing admission: the job ends cancelled, the handler is aborted, 0 calls billed', async () => {
    const p = await accept({ call: 'sync' });
    let cancelled = false;
    // The read has happened (the entry is this worker's); the cancel lands before admission.
    const { w, executed } = worker('racer', async (deliveries) => {
      if (cancelled || !deliveries.some((d) => d.pointer?.jobId === p.jobId)) return;
      await h.database.transaction((tx) => transitionJob(tx, { id: p.jobId, event: 'cancel' }));
      cancelled = true;
    });
    await w.start();
    await h.fixture.dispatch([p]);
    // Acked either way: after the cancel (ack only), or after a run that should not have been.
    await waitFor(async () => cancelled && (await h.pending(paidJob.kind)) === 0, {
      message: 'entry acked',
    });
    expect(w.metrics().admittedFromPointer).toBe(1);
    // Started from the pointer, so its handler ran up to its first write, which was refused.
    expect(executed.some((l) => l.startsWith(`EXECUTE ${p.jobId}`))).toBe(true);
    expect(await stateOf(p.jobId)).toBe('cancelled');
    expect(await billed(p.jobId)).toBe(0);
    expect(await ledgerRows(p.jobId)).toEqual([]);
    const states = (await listEvents(h.database.db, p.jobId)).flatMap((e) =>
      'to' in e ? [e.to] : [],
    );
    expect(states).toEqual(['accepted', 'queued', 'cancelled']);
    expect(w.metrics().cancelled).toBe(1); // the attempt learned why its write was refused
  });

  it('a stale epoch: the attempt of an old snapshot writes and bills nothing; the new epoch runs once', async () => {
    const p = await accept({ call: 'sync' });
    // Another attempt ran (epoch 1) and gave the job back: it is queued again at a newer epoch.
    await h.database.transaction(async (tx) => {
      await transitionJob(tx, { id: p.jobId, event: 'start', leaseMs: 60_000 });
      await transitionJob(tx, { id: p.jobId, event: 'retry' });
    });
    const { w, executed } = worker('stale');
    await w.start();
    await h.fixture.dispatch([p]); // the old pointer arrives late, as a first delivery
    // Fenced, or (were it not) billed: whichever comes first decides.
    await waitFor(async () => w.metrics().lostLeases === 1 || (await billed(p.jobId)) > 0, {
      message: 'the stale attempt was fenced or billed',
    });
    expect(await billed(p.jobId)).toBe(0);
    expect(w.metrics().lostLeases).toBe(1);
    expect(w.metrics().admittedFromPointer).toBe(1);
    expect(executed.some((l) => l.startsWith(`EXECUTE ${p.jobId}`))).toBe(true);
    expect(await billed(p.jobId)).toBe(0);
    expect(await ledgerRows(p.jobId)).toEqual([]);
    const row = (await jobRows(h, [p.jobId]))[0];
    expect([row?.state, row?.epoch, row?.attempts]).toEqual(['queued', 1, 1]);
    // The re-dispatch (no snapshot: the reconciler's pointer) reads the row and runs epoch 2.
    const { snapshot: _old, ...again } = p;
    await h.fixture.dispatch([again]);
    await waitFor(async () => (await stateOf(p.jobId)) === 'succeeded', { message: 'succeeded' });
    expect(await billed(p.jobId)).toBe(1);
    expect((await ledgerRows(p.jobId)).map((r) => Number(r.epoch))).toEqual([2]);
  });

  it('an input too large to carry falls back to the row read and runs correctly', async () => {
    // The paid job's schema strips the padding: only the size of what was submitted matters.
    const p = await accept({ call: 'sync', units: 2, pad: 'x'.repeat(9000) });
    expect(p.snapshot).toBeDefined();
    expect(p.snapshot?.inputJson).toBeUndefined();
    const { w, executed } = worker('large');
    await w.start();
    await h.fixture.dispatch([p]);
    await waitFor(async () => (await stateOf(p.jobId)) === 'succeeded', { message: 'succeeded' });
    expect(w.metrics().admittedFromPointer).toBe(0);
    // Two units: the input came from the row.
    expect(executed.filter((l) => l.startsWith(`EXECUTE ${p.jobId}`))).toHaveLength(2);
    expect(await billed(p.jobId)).toBe(2);
  });

  it('an old-format pointer (no format field) reads the row and runs', async () => {
    const p = await accept({ call: 'sync' }, false);
    const { w } = worker('old');
    await w.start();
    await h.fixture.dispatch([p]);
    await waitFor(async () => (await stateOf(p.jobId)) === 'succeeded', { message: 'succeeded' });
    expect(w.metrics().admittedFromPointer).toBe(0);
    expect(await billed(p.jobId)).toBe(1);
  });
});
