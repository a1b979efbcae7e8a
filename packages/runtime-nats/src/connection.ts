// The NATS client, loaded on demand: `@nats-io/transport-node`, `@nats-io/jetstream` and
// `@nats-io/kv` are optional peers, so an app that never runs this runtime installs none of them.

import { createRequire } from 'node:module';
import { requireOptional } from '@sluice/storage';
import type { NatsConnection } from '@nats-io/transport-node';
import type * as Transport from '@nats-io/transport-node';
import type * as Js from '@nats-io/jetstream';
import type * as Kv from '@nats-io/kv';

const require = createRequire(import.meta.url);
const NEEDED_FOR = 'the nats runtime';

export interface NatsModules {
  readonly transport: typeof Transport;
  readonly js: typeof Js;
  readonly kv: typeof Kv;
}

let modules: NatsModules | undefined;

export function natsModules(): NatsModules {
  modules ??= {
    transport: requireOptional<typeof Transport>(require, '@nats-io/transport-node', NEEDED_FOR),
    js: requireOptional<typeof Js>(require, '@nats-io/jetstream', NEEDED_FOR),
    kv: requireOptional<typeof Kv>(require, '@nats-io/kv', NEEDED_FOR),
  };
  return modules;
}

/** `nats://host:port` → the client's server list entry. */
export function serverOf(url: string): string {
  return url.replace(/^nats:\/\//, '');
}

/**
 * Connects with endless reconnects: a broker restart must not end a long-lived worker or gateway.
 * The name shows in the server's connection list.
 */
export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  const { transport } = natsModules();
  return transport.connect({
    servers: serverOf(url),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    timeout: 5_000,
    // A link that silently drops everything (a half-open socket) is noticed within ~10 s and
    // replaced, instead of after the client's default 4 minutes.
    pingInterval: 5_000,
    maxPingOut: 2,
  });
}

/**
 * Calls `onReconnect` after every reconnect: the server may be a new one that lost its store, so
 * what we set up (streams, consumers, buckets) must be made sure of again. Ends with the connection.
 */
export function onReconnect(nc: NatsConnection, onReconnect: () => void): void {
  void (async () => {
    for await (const s of nc.status()) if (s.type === 'reconnect') onReconnect();
  })().catch(() => {});
}

/** Bound on waiting for the server to confirm what we sent (a blackholed link never answers). */
export async function flushWithin(nc: NatsConnection, ms = 3_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      nc.flush(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`nats flush timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
