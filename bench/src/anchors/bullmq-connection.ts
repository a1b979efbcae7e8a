// BullMQ 6 loads `ioredis` lazily unless told otherwise, and ioredis is not installed here; its
// supported fork iovalkey (the client Sluice uses) is wrapped through BullMQ's own ioredis adapter.
import { createIORedisClient, RedisConnection } from 'bullmq';
import { Redis, type RedisOptions } from 'iovalkey';

let installed = false;

export function useIovalkeyForBullmq(): void {
  if (installed) return;
  installed = true;
  // BullMQ's options are ioredis options, which iovalkey accepts unchanged.
  RedisConnection.clientFactory = (opts) =>
    createIORedisClient(
      new Redis(opts as RedisOptions) as unknown as Parameters<typeof createIORedisClient>[0],
    );
}

/** Config the parent hands to BullMQ children. */
export interface BullmqChildConfig {
  host: string;
  port: number;
  queue: string;
}

export function parseBullmqConfig(config: Record<string, unknown>): BullmqChildConfig {
  const { host, port, queue } = config;
  if (typeof host !== 'string' || typeof port !== 'number' || typeof queue !== 'string') {
    throw new Error(`bad BullMQ child config: ${JSON.stringify(config)}`);
  }
  return { host, port, queue };
}

/** BullMQ's cheapest setting: nothing kept after completion or failure. */
export const BULLMQ_JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true } as const;
