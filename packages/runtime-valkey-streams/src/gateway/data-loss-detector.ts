// How the reconciler learns that the Redis server lost its data (a restart without persistence,
// a failover to a replica that was behind, a flush, an eviction): a generation marker it wrote is
// gone, or a job stream this gateway dispatched to no longer exists. Redis is a transport, not
// the system of record: after a loss every non-terminal job is dispatched again from the database.
//
// The marker is written BEFORE the re-dispatch, so a loss during it removes the marker again and
// the next check repeats the work.

import { randomToken } from '@sluice/contracts';
import type { DataLossDetector } from '@sluice/gateway';
import { type StreamKeys } from '../keys.js';
import { isBusyGroupError } from '../replies.js';
import type { RedisClient } from './redis-client.js';

export type { DataLossDetector };

/** The marker's key. (Belongs in `createStreamKeys` with the other names; contracts is not ours.) */
export function generationKey(keys: StreamKeys): string {
  return keys.generation;
}

export function createStreamsDataLossDetector(
  redis: Pick<RedisClient, 'pipeline'>,
  keys: StreamKeys,
  knownStreams: () => readonly string[],
): DataLossDetector {
  const key = generationKey(keys);
  return {
    async lost() {
      const streams = knownStreams();
      const pipe = redis.pipeline().get(key);
      for (const s of streams) pipe.exists(s);
      const results = await pipe.exec();
      if (!results) throw new Error('stream pipeline was not executed');
      for (const [error] of results) if (error) throw error;
      if (results[0]?.[1] === null) return true;
      return results.slice(1).some(([, n]) => Number(n) === 0);
    },
    async mark() {
      // Known streams are recreated (empty, with their group) so an idle one reads as present.
      const pipe = redis.pipeline().set(key, randomToken());
      for (const s of knownStreams()) pipe.xgroup('CREATE', s, keys.group, '0', 'MKSTREAM');
      const results = await pipe.exec();
      if (!results) throw new Error('stream pipeline was not executed');
      for (const [error] of results) if (error && !isBusyGroupError(error)) throw error;
    },
  };
}
