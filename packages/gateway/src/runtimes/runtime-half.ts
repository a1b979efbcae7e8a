// What a runtime's gateway half hands `createGateway`, and what it is given to build it. The
// runtime object itself (`SluiceRuntime` in contracts) is one per runtime package; this file is
// the gateway's side of that seam, so a runtime written outside the repo types against it alone.

import type { ErrorCode, SluiceRuntime } from '@sluice/contracts';
import type { SluiceDatabase, StoredEvent } from '@sluice/storage';
import type { Hono } from 'hono';
import type { EventTailer } from '../events/event-hub.js';
import type { RuntimeProbes } from '../observability/health.js';
import type { GatewayDispatcher } from '../wire/gateway-dispatcher.js';

/** What a runtime's halves are built from: the job database every runtime keeps its state in. */
export interface RuntimeResources {
  readonly database: SluiceDatabase;
}

/** What routes a runtime adds may use of the gateway. */
export interface RuntimeRouteDeps {
  readonly database: SluiceDatabase;
  /** Events a route stored, for this gateway's subscribers. */
  publish(events: readonly StoredEvent[]): void;
  /** Counts a refusal by code (metrics). */
  onReject(code: ErrorCode): void;
}

/** Adds a runtime's own HTTP routes to the gateway's app (a push platform's callbacks). */
export type RuntimeRoutes = (app: Hono, deps: RuntimeRouteDeps) => void;

export interface GatewayRuntimeHalf {
  readonly dispatcher: GatewayDispatcher;
  /** With `carriesEvents`: the runtime's events tailer, instead of the database's. */
  readonly eventTailer?: EventTailer | undefined;
  /** Readiness and metrics of the transport. */
  readonly probes?: RuntimeProbes | undefined;
  readonly routes?: RuntimeRoutes | undefined;
  /** Releases the transport. After the gateway's own close. */
  close(): Promise<void>;
}

/** A runtime a Node deployment runs: its gateway half over the job database. */
export type NodeRuntime = SluiceRuntime<RuntimeResources, GatewayRuntimeHalf>;
