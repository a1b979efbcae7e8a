// Dispatch by version prefix, against a production-shaped Workflow binding: production's
// `create` THROWS on an id that exists (the local engine silently accepts it, so workerd cannot
// show this), and a redelivered pointer must count as dispatched, never as a failure that would
// strand the job or a second instance. The dead-letter path runs in workerd (workflows.test.ts).
import { formatJobId, type MessagePointer } from '@sluice/contracts';
import { openDatabase } from '@sluice/storage';
import { afterAll, describe, expect, it } from 'vitest';
import type { WorkflowBindingLike } from '../platform.js';
import { createWorkflowRouter } from './router.js';

/** Like production: one instance per id; a duplicate create throws; get of an unknown id throws. */
function productionBinding() {
  const instances = new Map<string, MessagePointer>();
  let creates = 0;
  const binding: WorkflowBindingLike<MessagePointer> = {
    async create({ id, params }) {
      creates++;
      if (instances.has(id)) throw new Error(`instance.already_exists: ${id}`);
      instances.set(id, params);
      return { id };
    },
    async get(id) {
      if (!instances.has(id)) throw new Error('instance.not_found');
      return { id, status: async () => ({ status: 'running' }), terminate: async () => {} };
    },
  };
  return { binding, instances, creates: () => creates };
}

describe('createWorkflowRouter', () => {
  const database = openDatabase({ url: ':memory:', walCheckpointEveryMs: 0 });
  const dlq = { send: async () => {} };
  afterAll(() => database.close());

  it('a redelivered pointer is already dispatched: one instance, no error', async () => {
    const v1 = productionBinding();
    const router = createWorkflowRouter({
      database,
      workflows: { v1: v1.binding },
      deadLetters: dlq,
    });
    const p = { jobId: formatJobId('v1'), kind: 'demo.x', version: 'v1', tenantId: 'acme' };
    expect(await router.dispatch(p)).toEqual({ jobId: p.jobId, routed: true, version: 'v1' });
    expect(await router.dispatch(p)).toEqual({ jobId: p.jobId, routed: true, version: 'v1' });
    expect(v1.creates()).toBe(2);
    expect([...v1.instances.keys()]).toEqual([p.jobId]);
  });

  it('a create that fails for another reason (no instance exists) is an error', async () => {
    const broken: WorkflowBindingLike<MessagePointer> = {
      create: () => Promise.reject(new Error('429 too many requests')),
      get: () => Promise.reject(new Error('instance.not_found')),
    };
    const router = createWorkflowRouter({ database, workflows: { v1: broken }, deadLetters: dlq });
    const p = { jobId: formatJobId('v1'), kind: 'demo.x', version: 'v1', tenantId: 'acme' };
    await expect(router.dispatch(p)).rejects.toThrow('429');
  });

  it('a pointer that is not one is refused before anything is created', async () => {
    const v1 = productionBinding();
    const router = createWorkflowRouter({
      database,
      workflows: { v1: v1.binding },
      deadLetters: dlq,
    });
    const v2id = formatJobId('v2');
    await expect(
      router.dispatch({ jobId: v2id, kind: 'demo.x', version: 'v1', tenantId: 'acme' }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(v1.creates()).toBe(0);
  });
});
