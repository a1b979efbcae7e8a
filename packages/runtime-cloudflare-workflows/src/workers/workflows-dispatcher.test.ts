// The Workflows dispatcher against a binding that behaves as production does (the local engine
// does not): `create` of an existing id throws, `createBatch` skips existing ids. Instance id =
// job id, so a second dispatch of a job is the same instance; an unbound version is
// dead-lettered, never created on another version's Workflow.
import { formatJobId, type MessagePointer } from '@sluice/contracts';
import { acceptJobs, getJobById, migrate, openDatabase } from '@sluice/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkflowsDispatcher } from './workflows-dispatcher.js';
import type { WorkflowBindingLike } from '../platform.js';

/** What a production binding does with ids: it refuses a duplicate (the local one accepts it). */
function productionLikeBinding() {
  const instances = new Map<string, { status: string }>();
  const calls = { create: 0, createBatch: 0, terminated: [] as string[] };
  const binding: WorkflowBindingLike<MessagePointer> = {
    async create({ id }) {
      calls.create++;
      if (instances.has(id)) throw new Error(`instance.already_exists: ${id}`);
      instances.set(id, { status: 'running' });
      return { id };
    },
    async createBatch(batch) {
      calls.createBatch++;
      for (const { id } of batch) if (!instances.has(id)) instances.set(id, { status: 'running' });
      return batch;
    },
    async get(id) {
      const i = instances.get(id);
      if (!i) throw new Error('instance.not_found');
      return {
        id,
        status: async () => ({ status: i.status }),
        async terminate() {
          if (i.status !== 'running') throw new Error('instance is not running');
          i.status = 'terminated';
          calls.terminated.push(id);
        },
      };
    },
  };
  return { binding, instances, calls };
}

const database = openDatabase({ url: ':memory:' });
beforeAll(() => migrate(database));
afterAll(() => database.close());

async function queued(version: string, n = 1): Promise<MessagePointer[]> {
  const pointers = Array.from({ length: n }, () => ({
    jobId: formatJobId(version),
    kind: 'demo.k',
    version,
    tenantId: 'acme',
  }));
  await acceptJobs(
    database,
    pointers.map((p) => ({
      id: p.jobId,
      tenantId: 'acme',
      kind: p.kind,
      version,
      input: {},
      inputHash: 'h',
      maxAttempts: 3,
      outcome: { to: 'queued' as const },
    })),
  );
  return pointers;
}

describe('createWorkflowsDispatcher', () => {
  it('an instance that already exists counts as dispatched (create throws in production)', async () => {
    const v1 = productionLikeBinding();
    const dispatcher = createWorkflowsDispatcher({ database, workflows: { v1: v1.binding } });
    const [p] = await queued('v1');
    await dispatcher.dispatch([p as MessagePointer]);
    await dispatcher.dispatch([p as MessagePointer]);
    expect(v1.calls.create).toBe(2);
    expect([...v1.instances.keys()]).toEqual([p?.jobId]);
  });

  it('a burst goes out with createBatch, 100 per call, one instance per job', async () => {
    const v1 = productionLikeBinding();
    const dispatcher = createWorkflowsDispatcher({ database, workflows: { v1: v1.binding } });
    const pointers = await queued('v1', 150);
    await dispatcher.dispatch(pointers);
    await dispatcher.dispatch(pointers.slice(0, 120));
    expect(v1.calls.createBatch).toBe(4);
    expect(v1.instances.size).toBe(150);
  });

  it('an unbound version is dead-lettered VERSION_NOT_ROUTABLE and never created elsewhere', async () => {
    const v1 = productionLikeBinding();
    const sent: unknown[] = [];
    const dispatcher = createWorkflowsDispatcher({
      database,
      workflows: { v1: v1.binding, v2: undefined },
      deadLetters: { send: async (m) => void sent.push(m) },
    });
    const [p] = await queued('v2');
    await dispatcher.dispatch([p as MessagePointer]);
    expect(v1.instances.size).toBe(0);
    const job = await getJobById(database.db, p?.jobId as string);
    expect(job?.state).toBe('dead_lettered');
    expect(job?.reason).toBe('VERSION_NOT_ROUTABLE');
    expect(sent).toEqual([
      expect.objectContaining({ jobId: p?.jobId, reason: 'VERSION_NOT_ROUTABLE' }),
    ]);
    expect(await dispatcher.servedVersions?.('demo.k')).toEqual(['v1']);
  });

  it('stopRun terminates a running instance and leaves a finished one alone', async () => {
    const v1 = productionLikeBinding();
    const dispatcher = createWorkflowsDispatcher({ database, workflows: { v1: v1.binding } });
    const [a, b] = await queued('v1', 2);
    await dispatcher.dispatch([a as MessagePointer]);
    await dispatcher.dispatch([b as MessagePointer]);
    (v1.instances.get(b?.jobId as string) as { status: string }).status = 'complete';
    await dispatcher.stopRun({ id: a?.jobId as string, version: 'v1' });
    await dispatcher.stopRun({ id: b?.jobId as string, version: 'v1' });
    await dispatcher.stopRun({ id: 'v1-missing', version: 'v1' });
    expect(v1.calls.terminated).toEqual([a?.jobId]);
  });
});
