// Idempotent setup of what both halves need on the server: the work-queue jobs stream (the
// gateway publishes into it, the workers create their consumers on it) and the dead-letter
// stream. Safe to run from any number of processes at once.

import type { JetStreamManager, StreamConfig } from '@nats-io/jetstream';
import type { VersionKey } from '@sluice/contracts';
import { natsModules } from './connection.js';
import type { NatsNames } from './names.js';

/** JetStream's "not found" (stream, consumer, message), whichever class the client used. */
export function isNotFound(error: unknown): boolean {
  const e = error as { code?: unknown; status?: unknown; name?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  return e.code === 10059 || e.code === 10014 || e.code === 10037 || e.status === 404;
}

async function ensureStream(
  jsm: JetStreamManager,
  config: Partial<StreamConfig> & { name: string },
) {
  try {
    await jsm.streams.info(config.name);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    try {
      await jsm.streams.add(config);
    } catch (added) {
      // Another process created it between our info and our add: same config, nothing to do.
      await jsm.streams.info(config.name).catch(() => {
        throw added;
      });
    }
  }
}

export async function ensureJobsStream(jsm: JetStreamManager, names: NatsNames): Promise<void> {
  const { js } = natsModules();
  await ensureStream(jsm, {
    name: names.jobsStream,
    subjects: [`${names.prefix}.jobs.>`],
    // A message stays until a worker acknowledges it after the stored outcome, then goes: the
    // stream's length is the work not yet finished (one consumer per subject, never overlapping).
    retention: js.RetentionPolicy.Workqueue,
    storage: js.StorageType.File,
  });
}

export async function ensureDeadStream(
  jsm: JetStreamManager,
  names: NatsNames,
  maxMsgs: number,
): Promise<void> {
  const { js } = natsModules();
  await ensureStream(jsm, {
    name: names.deadStream,
    subjects: [`${names.prefix}.dead.>`],
    retention: js.RetentionPolicy.Limits,
    storage: js.StorageType.File,
    max_msgs: maxMsgs,
  });
}

/**
 * The jobs and dead-letter streams, and a durable pull consumer per (kind, version): explicit
 * ack, AckWait = the lease, every message from the start of the stream (one published before the
 * consumer existed was dispatched and never delivered).
 */
export async function ensureVersionConsumers(
  jsm: JetStreamManager,
  names: NatsNames,
  versions: readonly VersionKey[],
  o: { ackWaitMs: number; maxDeliver: number; deadLettersMax: number },
): Promise<void> {
  const { js } = natsModules();
  await ensureJobsStream(jsm, names);
  await ensureDeadStream(jsm, names, o.deadLettersMax);
  const ackWait = o.ackWaitMs * 1_000_000;
  for (const v of versions) {
    const durable = names.durable(v.kind, v.version);
    try {
      const info = await jsm.consumers.info(names.jobsStream, durable);
      // Shared by every worker of this version: the newest lease setting wins.
      if (info.config.ack_wait !== ackWait)
        await jsm.consumers.update(names.jobsStream, durable, { ack_wait: ackWait });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      const config = {
        durable_name: durable,
        ack_policy: js.AckPolicy.Explicit,
        ack_wait: ackWait,
        max_deliver: o.maxDeliver,
        filter_subject: names.jobsSubject(v.kind, v.version),
        deliver_policy: js.DeliverPolicy.All,
        max_ack_pending: -1,
      };
      await jsm.consumers.add(names.jobsStream, config).catch(async (added: unknown) => {
        // Another worker created it meanwhile.
        await jsm.consumers.info(names.jobsStream, durable).catch(() => {
          throw added;
        });
      });
    }
  }
}
