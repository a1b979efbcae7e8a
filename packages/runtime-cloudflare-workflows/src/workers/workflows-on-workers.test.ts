// `workflowsOnWorkers`: its options are checked when the Worker loads (INVALID_CONFIG naming the
// field), and the dispatcher it builds reads the Workflow and dead-letter bindings of the env it
// is given, by the names it was given.
import { formatJobId, type SluiceError, type MessagePointer } from '@sluice/contracts';
import { acceptJobs, getJobById, migrate, openDatabase } from '@sluice/storage';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { WorkflowBindingLike } from '../platform.js';
import { workflowsOnWorkers } from './workflows-on-workers.js';

const database = openDatabase({ url: ':memory:' });
beforeAll(() => migrate(database));
afterAll(() => database.close());

function refusal(options: unknown): SluiceError {
  try {
    workflowsOnWorkers(options as never);
  } catch (error) {
    return error as SluiceError;
  }
  throw new Error('accepted');
}

it('refuses bad options, naming the field', () => {
  expect(refusal({ workflows: {} })).toMatchObject({
    code: 'INVALID_CONFIG',
    details: { field: 'workflows' },
  });
  expect(refusal({ workflows: { v1: '' } })).toMatchObject({
    code: 'INVALID_CONFIG',
    details: { field: 'workflows.v1' },
  });
  expect(refusal({ workflows: { v1: 'WF_V1' }, queue: 'DLQ' })).toMatchObject({
    code: 'INVALID_CONFIG',
  });
});

it("builds the dispatcher from the env's bindings by their names", async () => {
  const created: string[] = [];
  const wf: WorkflowBindingLike<MessagePointer> = {
    async create({ id }) {
      created.push(id);
      return { id };
    },
    get: async () => {
      throw new Error('instance.not_found');
    },
  };
  const sent: unknown[] = [];
  const env = { MY_WF: wf, DEAD: { send: async (m: unknown) => void sent.push(m) } };
  const runtime = workflowsOnWorkers({
    workflows: { v1: 'MY_WF', v2: 'NOT_BOUND' },
    deadLetters: 'DEAD',
  });
  const dispatcher = runtime.dispatcher(env, { database });
  expect(dispatcher.runs).toBeDefined();
  expect(await dispatcher.servedVersions?.('demo.k')).toEqual(['v1']);

  const pointers = ['v1', 'v2'].map((version) => ({
    jobId: formatJobId(version),
    kind: 'demo.k',
    version,
    tenantId: 'acme',
  }));
  await acceptJobs(
    database,
    pointers.map((p) => ({
      ...p,
      id: p.jobId,
      input: {},
      inputHash: 'h',
      maxAttempts: 3,
      outcome: { to: 'queued' as const },
    })),
  );
  await dispatcher.dispatch(pointers);
  expect(created).toEqual([pointers[0]?.jobId]);
  expect((await getJobById(database.db, pointers[1]?.jobId as string))?.state).toBe(
    'dead_lettered',
  );
  expect(sent).toEqual([expect.objectContaining({ jobId: pointers[1]?.jobId })]);
});
