// Fault injection for the gateway's tests only (the worker's twin: packages/worker/src/testing/
// seeded-bugs.ts). Each seeded bug is one known-dangerous change expressed as gateway hooks
// (src/hooks.ts); `npm run seeded-bugs` runs the tests that must catch each with
// `SLUICE_SEEDED_BUG=<name>` and proves they turn red. Only the test fixture calls
// `gatewayHooksFromEnv()`; production code never reads the variable.

import { retentionKeyOf } from '@sluice/contracts';
import { decideFlow } from '../flow/decide-flow.js';
import type { GatewayHooks } from '../hooks.js';

export const GATEWAY_SEEDED_BUGS = [
  /** The scope check is skipped for subscriptions served over SSE. */
  'sse-skips-scope',
  /** Revocation and expiry end WebSocket streams only; SSE streams keep delivering. */
  'revocation-keeps-sse',
  /** Retention's filter counts a running or needs_review job as failed, and removes it. */
  'retention-removes-live-jobs',
  /** A trailing debounce opens a new window on every submit instead of folding into the open one. */
  'debounce-always-opens',
  /** A singleton submit in `queue` mode runs at once instead of waiting for its key. */
  'singleton-never-holds',
  /** A batch takes inputs past `maxSize` (it never counts itself full). */
  'batch-ignores-max-size',
  /** A used approval token completes its wait again (a replay is accepted). */
  'token-replay',
  /** A rerun starts the job with a clean ledger: billed calls are forgotten, and sent again. */
  'rerun-forgets-ledger',
  /**
   * A bulk batch's progress is stored apart from the batch: committed first, then the batch,
   * whose commit takes a while (a slow link). A gateway killed in between leaves the cursor past
   * jobs that were never moved, and the next runner skips them.
   */
  'bulk-progress-outside-batch',
] as const;
export type GatewaySeededBug = (typeof GATEWAY_SEEDED_BUGS)[number];

export function gatewaySeededHooks(bug: GatewaySeededBug): Partial<GatewayHooks> {
  switch (bug) {
    case 'sse-skips-scope':
      return {
        scopeHeld: (granted, required, call) =>
          (call.type === 'subscription' && call.transport === 'http') ||
          granted.includes(required) ||
          granted.includes('admin'),
      };
    case 'revocation-keeps-sse':
      return { endsStream: (transport) => transport !== 'http' };
    case 'retention-removes-live-jobs':
      return {
        retentionKey: (state) =>
          state === 'running' || state === 'needs_review' ? 'failed' : retentionKeyOf(state),
      };
    case 'debounce-always-opens':
      return {
        decideFlow: (plan, slot, now, facts) =>
          plan.flow === 'debounce' && plan.mode === 'trailing'
            ? decideFlow(plan, { ...slot, job: undefined, jobId: null }, now, facts)
            : decideFlow(plan, slot, now, facts),
      };
    case 'singleton-never-holds':
      return {
        decideFlow: (plan, slot, now, facts) => {
          const d = decideFlow(plan, slot, now, facts);
          return d.action === 'open' && d.start === 'held' ? { ...d, start: 'queued' } : d;
        },
      };
    case 'batch-ignores-max-size':
      return {
        decideFlow: (plan, slot, now, facts) =>
          plan.flow === 'batch' && slot.job?.state === 'scheduled'
            ? { action: 'append', dueAt: undefined, size: slot.size + 1 }
            : decideFlow(plan, slot, now, facts),
      };
    case 'token-replay':
      return { tokenUsable: (status) => status === 'open' || status === 'used' };
    case 'rerun-forgets-ledger':
      return {
        async onRerun(tx, { jobId }) {
          await tx.deleteFrom('provider_calls').where('job_id', '=', jobId).execute();
        },
      };
    case 'bulk-progress-outside-batch':
      return {
        async storeBulkProgress(_tx, db, write) {
          const held = await write(db);
          await new Promise((r) => setTimeout(r, 300));
          return held;
        },
      };
  }
}

/** The hooks `SLUICE_SEEDED_BUG` names, when it names a gateway bug (test processes only). */
export function gatewayHooksFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): Partial<GatewayHooks> | undefined {
  const bug = env.SLUICE_SEEDED_BUG;
  return (GATEWAY_SEEDED_BUGS as readonly string[]).includes(bug ?? '')
    ? gatewaySeededHooks(bug as GatewaySeededBug)
    : undefined;
}
