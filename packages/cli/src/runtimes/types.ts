// One object per runtime (as Kysely has one dialect object): its name, its capabilities, what it
// needs from the settings, and the factories of its two halves — the gateway's (dispatcher,
// event tailer, probes) and the worker's (a pull consumer, or a push entry that runs elsewhere).
// The CLI and the config read the list in registry.ts; nothing else compares runtime names.

import type { JobRegistry, RuntimeCapabilities } from '@sluice/contracts';
import type { GatewayOptions } from '@sluice/gateway';
import type { RuntimeOption } from '@sluice/worker';
import type { Settings } from '../define-config.js';
import type { Resources } from '../resources.js';
import type { ServiceProbe } from '../wait-for-service.js';

/** The gateway half: what `createGateway` takes from the runtime, and how to release it. */
export type GatewayHalf = Pick<
  GatewayOptions<JobRegistry>,
  'runtime' | 'eventTailer' | 'runtimeProbes' | 'stateCallback'
> & {
  close(): Promise<void>;
};

/** The worker half: a consumer `sluice worker` pulls from, or a platform that pushes. */
export type WorkerHalf =
  | { readonly kind: 'pull'; create(settings: Settings, resources: Resources): RuntimeOption }
  /** The platform runs the jobs (a Workflow class deployed to Cloudflare): nothing to start here. */
  | { readonly kind: 'push'; readonly entry: string; readonly instructions: string };

export interface SluiceRuntime<N extends string = string> {
  readonly name: N;
  readonly capabilities: RuntimeCapabilities;
  /** What the settings lack for this runtime (a message naming the variable), or undefined. */
  check(settings: Settings): string | undefined;
  /** Services besides the database to wait for at start (within `--connect-wait-ms`). */
  waitsFor?(settings: Settings): readonly ServiceProbe[];
  gateway(settings: Settings, resources: Resources): GatewayHalf;
  readonly worker: WorkerHalf;
}
