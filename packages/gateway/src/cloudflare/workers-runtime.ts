// What a runtime hands `createWorkersGateway`: its Workers half, as the Node gateway takes its
// dispatcher from the runtime object's gateway half. A Worker's bindings exist only in the `env`
// of a request, so the half is a factory the gateway calls once per env; the gateway never reads
// a runtime's bindings itself, and a new push runtime on Workers is a new object of this shape,
// not an edit here.
//
// What the gateway schedules on its cron trigger for the runtime follows from what the
// dispatcher has, never from its name: run recovery only where it has `runs` (cron.ts).

import type { SluiceDatabase } from '@sluice/storage/portable';
import type { GatewayDispatcher } from '../wire/gateway-dispatcher.js';

/** What the half is built from, besides the env: the job database the gateway opened. */
export interface WorkersRuntimeResources {
  readonly database: SluiceDatabase;
}

export interface WorkersRuntime {
  /** The dispatcher over this env's bindings (called once per env and isolate). */
  dispatcher(env: object, resources: WorkersRuntimeResources): GatewayDispatcher;
}
