// The Cloudflare Workflows runtime in workerd: the real engine (miniflare's local Workflows), D1,
// the DLQ queue, and the fake provider over real HTTP. What re-ran is proven by rows counted in
// D1 (`test_exec` per execute, `provider_calls` per ledger row, `test_runs` per run()) and by the
// provider's own bill count, never by the engine's word.
import { beforeAll, describe, expect, it } from 'vitest';
import { createWorkflowRouter } from '../src/cloudflare/router.js';
import { bindings } from './bindings.js';
import {
  database,
  eventsOf,
  executions,
  jobRow,
  ledgerRows,
  prepareDatabase,
  providerBills,
  queuedJob,
  runsOf,
  waitForStatus,
} from './helpers.js';

const router = createWorkflowRouter({
  database,
  workflows: { v1: bindings.WF_V1, v2: bindings.WF_V2 },
  deadLetters: bindings.DLQ,
});

beforeAll(prepareDatabase);

describe('Cloudflare Workflows runtime', () => {
  it('a submitted job reaches succeeded exactly once (at least once, and once)', async () => {
    const p = await queuedJob('v1', { units: 3, call: true });
    expect(await router.dispatch(p)).toEqual({ jobId: p.jobId, routed: true, version: 'v1' });
    const status = await waitForStatus(bindings.WF_V1, p.jobId, ['complete', 'errored']);
    expect(status.status).toBe('complete');
    const row = await jobRow(p.jobId);
    expect(row).toMatchObject({ state: 'succeeded', output: { total: 6, version: 'v1' } });
    // A second dispatch of the same job (a redelivered pointer) runs nothing again.
    await router.dispatch(p);
    await waitForStatus(bindings.WF_V1, p.jobId, ['complete']);
    const events = await eventsOf(p.jobId);
    expect(events.filter((e) => e.type === 'state' && e.to === 'succeeded')).toHaveLength(1);
    expect(await executions(p.jobId)).toEqual({ u0: 1, u1: 1, u2: 1 });
    expect(await ledgerRows(p.jobId)).toBe(3);
    expect(await providerBills(p.jobId)).toEqual({
      u0: { billed: 1, requests: 1 },
      u1: { billed: 1, requests: 1 },
      u2: { billed: 1, requests: 1 },
    });
    expect(await runsOf(p.jobId)).toBeGreaterThanOrEqual(1);
  });
});
