// What the Workers gateway's cron trigger (`scheduled`) runs, each pass on its own and each under
// its own lock in D1 (one Worker at a time): the outbox reconcile (jobs whose post-accept
// dispatch failed or never ran), run recovery where the runtime's runs can be asked about
// (`runs`: a runtime without it recovers its runs itself, and nothing is scheduled for it), and
// a retention pass, smaller by default so one invocation stays within a Worker's limits.

import { randomToken, type RunInspector } from '@sluice/contracts';
import type { BlobStore, SluiceDatabase } from '@sluice/storage/portable';
import type { RunRecoveryOptions } from '../recovery/recover-lost-runs.js';
import { runRetentionPass, type ResolvedRetention } from '../retention/run-retention-pass.js';
import type { GatewayDispatcher } from '../wire/gateway-dispatcher.js';
import { reconcileOutbox } from './outbox-dispatch.js';
import { recoverRunsOnce } from './run-recovery-pass.js';

export interface CronSettings {
  /** An outbox row this old is dispatched again (default 30 s). */
  reconcileGraceMs?: number | undefined;
  /** Run recovery's bounds (recover-lost-runs.ts); `false` turns it off. */
  recovery?: RunRecoveryOptions | false | undefined;
  retention: ResolvedRetention;
}

export interface CronTarget {
  dispatcher: GatewayDispatcher;
  database: SluiceDatabase;
  blobs?: BlobStore | undefined;
}

function hasRuns(d: GatewayDispatcher): d is GatewayDispatcher & { readonly runs: RunInspector } {
  return d.runs !== undefined;
}

/** The passes of one cron invocation, started; each settles on its own (errors to `onError`). */
export function startCronPasses(
  g: CronTarget,
  settings: CronSettings,
  onError: (what: string) => (error: unknown) => void,
): Promise<unknown>[] {
  const passes: Promise<unknown>[] = [
    reconcileOutbox(g.dispatcher, g.database, { graceMs: settings.reconcileGraceMs }).catch(
      onError('outbox reconcile'),
    ),
  ];
  if (hasRuns(g.dispatcher) && settings.recovery !== false) {
    passes.push(
      recoverRunsOnce(g.dispatcher, g.database, settings.recovery ?? {}).catch(
        onError('run recovery'),
      ),
    );
  }
  passes.push(
    runRetentionPass({
      database: g.database,
      blobs: g.blobs,
      retention: settings.retention,
      owner: `cron-${randomToken().slice(0, 12)}`,
      defaults: { batchSize: 200, maxBatches: 10 },
    }).catch(onError('retention pass')),
  );
  return passes;
}
