// Provider limits on Cloudflare Workflows (D1): a provider call declared with
// `limits: { maxConcurrent: 1 }` takes its slot from the D1 counters every instance shares, so
// three instances running at once reach the provider one at a time. The proof is the provider's
// own ledger: each slow call (LIMITED_CALL_MS) is recorded when it answers, so calls that never
// overlapped are recorded at least one call's length apart; unlimited, all three answer together.
import { beforeAll, describe, expect, it } from 'vitest';
import { createWorkflowRouter } from '../src/worker/router.js';
import { bindings } from './bindings.js';
import { database, prepareDatabase, providerUrl, queuedJob, waitForStatus } from './helpers.js';
import { LIMITED_CALL_MS } from './test-job.js';

const router = createWorkflowRouter({
  database,
  workflows: { v1: bindings.WF_V1, v2: bindings.WF_V2 },
  deadLetters: bindings.DLQ,
});

beforeAll(prepareDatabase);

describe('provider limits on Workflows', () => {
  it('provider_max_concurrent_holds_across_instances: calls reach the provider one at a time', async () => {
    const pointers = await Promise.all(
      [0, 1, 2].map(() => queuedJob('v1', { units: 1, limitedCall: true })),
    );
    await Promise.all(pointers.map((p) => router.dispatch(p)));
    for (const p of pointers) {
      const status = await waitForStatus(bindings.WF_V1, p.jobId, ['complete', 'errored'], 45_000);
      expect(status.status).toBe('complete');
    }
    const res = await fetch(`${providerUrl()}/admin/ledger`);
    const ids = new Set(pointers.map((p) => p.jobId));
    const answered = ((await res.json()) as { jobId: string; billed: boolean; at: string }[])
      .filter((r) => ids.has(r.jobId))
      .map((r) => Date.parse(r.at))
      .sort((a, b) => a - b);
    expect(answered).toHaveLength(3);
    // One call at a time: each answer comes a whole call after the one before (slack for timers).
    for (let i = 1; i < answered.length; i++)
      expect(answered[i]! - answered[i - 1]!).toBeGreaterThanOrEqual(LIMITED_CALL_MS * 0.75);
  });
});
