// Test fixture for the Valkey Streams runtime: a gateway (see fixture.ts) whose dispatcher,
// events tailer, reconciler and probes come from `createStreamsGatewayRuntime` over a private
// redis-server. Timings are short so the suites stay fast; the reconciler is off unless asked
// (tests drive `tick()` themselves or start it).

import { decodePointer } from '@sluice/contracts';
import { encodeStreamEvent } from '../events.js';
import { type PriorityBand, type StreamKeys } from '../keys.js';
import { parseEntries } from '../replies.js';
import {
  transitionJob,
  type SluiceDatabase,
  type StoredEvent,
  type TransitionRequest,
} from '@sluice/storage';
import type { TestDatabase } from '@sluice/storage/testing';
import type { Redis } from 'iovalkey';
import type { GatewayOptions } from '@sluice/gateway';
import {
  createStreamsGatewayRuntime,
  type StreamsGatewayRuntime,
  type StreamsGatewayRuntimeOptions,
} from '../gateway/create-streams-gateway-runtime.js';
import { startGateway, type GatewayFixture, type TestJobs } from '@sluice/gateway/conformance';

/**
 * The runtime with its command connection as what it is, an iovalkey `Redis`: the public type
 * shows only the commands the gateway calls, and tests call more (XREADGROUP, XTRIM, DEL, …).
 */
export type TestStreamsRuntime = StreamsGatewayRuntime & { readonly redis: Redis };

export interface StreamsGatewayFixture extends GatewayFixture {
  readonly rt: TestStreamsRuntime;
}

export async function startStreamsGateway(
  db: TestDatabase,
  redisUrl: string,
  opts: Partial<StreamsGatewayRuntimeOptions> = {},
  overrides:
    | Partial<GatewayOptions<TestJobs>>
    | ((rt: StreamsGatewayRuntime) => Partial<GatewayOptions<TestJobs>>) = {},
): Promise<StreamsGatewayFixture> {
  const rt = createStreamsGatewayRuntime({
    redisUrl,
    database: db.database,
    reconciler: false,
    tailer: { blockMs: 200, watchdogMarginMs: 1000 },
    ...opts,
  }) as TestStreamsRuntime;
  const f = await startGateway(db, {
    runtime: rt.dispatcher,
    eventTailer: rt.tailer,
    runtimeProbes: rt.probes,
    ...(typeof overrides === 'function' ? overrides(rt) : overrides),
  });
  return {
    ...f,
    rt,
    async close() {
      await f.close();
      await rt.close();
    },
  };
}

/** Job ids of every entry in a job stream (duplicates included). */
export async function streamJobIds(
  redis: Redis,
  keys: StreamKeys,
  kind: string,
  version = 'v1',
  band: PriorityBand = 'normal',
) {
  const entries = parseEntries(await redis.xrange(keys.jobs(kind, version, band), '-', '+'));
  return entries.flatMap((e) => (e.fields ? [decodePointer(e.fields).jobId] : []));
}

/**
 * Plays a worker on the events side: commits a transition and XADDs its event to the events
 * stream, as the worker's `publishEvents` does.
 */
export async function transitionAndPublish(
  database: SluiceDatabase,
  redis: Redis,
  keys: StreamKeys,
  req: TransitionRequest,
): Promise<StoredEvent> {
  const r = await database.transaction((tx) => transitionJob(tx, req));
  if (!r.ok) throw new Error(`cannot ${req.event} ${req.id}: ${r.job?.state}`);
  await redis.xadd(keys.events, '*', ...encodeStreamEvent(r.event));
  return r.event;
}
