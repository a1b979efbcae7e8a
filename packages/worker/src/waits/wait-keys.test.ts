// An attempt's unnamed waits are keyed by their order in the run (`sleep#1`, `sleep#2`,
// `event:approved#1`), counted across its stages: a replay runs the same code and must meet the
// same keys. The waits are built on first use, once per attempt: building them again per call
// would restart the count and hand the second sleep the first one's stored result.
import { defineJob } from '@sluice/contracts';
import { describeEachDialect } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { DEFAULT_HOOKS } from '../hooks.js';
import { createAttemptWaits } from './create-attempt-waits.js';

const job = defineJob({
  kind: 'demo.keys',
  versions: { current: 'v1' },
  input: z.object({}),
  output: z.object({}),
  events: { approved: z.object({ ok: z.boolean() }) },
});

describeEachDialect('wait keys', (ctx) => {
  it('count per attempt across calls and stages; a named wait keeps its name', async () => {
    const keys: string[] = [];
    const waits = createAttemptWaits({
      database: ctx().database,
      capabilities: { durableWaits: true, childJobs: true },
      definition: job,
      job: { id: 'v1-keystestjob00000000000000', tenantId: 'a', epoch: 1 },
      flush: () => Promise.resolve(),
      fence: () => ({ epoch: 1, lastSeq: 1 }),
      onSuspended: () => {},
      onFenced: () => {},
      hooks: {
        ...DEFAULT_HOOKS,
        // Every wait is already settled: the run goes on, and its key is what it asked for.
        registerWait: (_db, request) => {
          keys.push(request.waitKey);
          return Promise.resolve({ kind: 'settled', status: 'resolved', value: { ok: true } });
        },
      },
    });
    const prepare = waits.forStage('prepare');
    await prepare.sleep(10);
    await prepare.sleep(10);
    await prepare.waitForEvent('approved');
    const finalize = waits.forStage('finalize');
    await finalize.sleep(10, { key: 'named' });
    await finalize.sleep(10);
    expect(keys).toEqual(['sleep#1', 'sleep#2', 'event:approved#1', 'sleep:named', 'sleep#3']);
  });
});
