// The gateway's Streams half on a real Redis Cluster (3 masters + 3 replicas): a dispatch over
// kinds on every master (one pipeline per slot), the fair feeder's room check, the metrics'
// snapshot (SCAN of every master), and the loss check, which must see a flush of ONE master.

import { formatJobId, type MessagePointer } from '@sluice/contracts';
import { createTestDatabase, type TestDatabase } from '@sluice/storage/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValkeyStreamsOptions } from '../runtime.js';
import {
  createStreamsClusterFixture,
  type StreamsClusterFixture,
} from '../testing/streams-cluster-fixture.js';
import { nodeClient } from '../testing/redis-cluster.js';
import { roomIn } from './bounded-add.js';
import { createStreamsDataLossDetector } from './data-loss-detector.js';
import { createStreamsGatewayRuntime } from './create-streams-gateway-runtime.js';
import { readStreamsSnapshot } from './stream-stats.js';

// Tags on all three masters' slot ranges (slots 8667, 15243, 3391).
const KINDS = ['xp.paid', 'xp.paidd', 'xp.paide'];
const pointer = (kind: string, priority?: number): MessagePointer => ({
  jobId: formatJobId('v1'),
  kind,
  version: 'v1',
  tenantId: 'acme',
  ...(priority !== undefined && { priority }),
});

describe('the gateway on a Redis Cluster', () => {
  let fx: StreamsClusterFixture;
  let db: TestDatabase;
  beforeAll(async () => {
    [fx, db] = await Promise.all([createStreamsClusterFixture(), createTestDatabase('sqlite')]);
  });
  afterAll(async () => {
    await fx?.dispose();
    await db?.dispose();
  });

  it('dispatches over every master, sizes streams, reports them, and sees one master lose its data', async () => {
    const rt = createStreamsGatewayRuntime({
      redisUrl: fx.cluster.url,
      database: db.database,
      reconciler: false,
    });
    try {
      const masters = new Set(
        await Promise.all(KINDS.map((k) => fx.cluster.masterOf(fx.keys.jobs(k, 'v1')))),
      );
      expect(masters.size).toBe(3);
      // One dispatch, every kind and band: group creations and XADDs of three slots.
      const sent = KINDS.flatMap((k) => [pointer(k), pointer(k), pointer(k, 5)]);
      await rt.dispatcher.dispatch(sent);
      for (const k of KINDS) {
        expect(await fx.redis.xlen(fx.keys.jobs(k, 'v1'))).toBe(2);
        expect(await fx.redis.xlen(fx.keys.jobs(k, 'v1', 'high'))).toBe(1);
      }
      const streams = KINDS.map((k) => fx.keys.jobs(k, 'v1'));
      expect(await roomIn(rt.redis, streams, fx.keys.group, 10)).toEqual([8, 8, 8]);

      const snapshot = await readStreamsSnapshot(rt.redis, fx.keys);
      expect(snapshot.jobs.map((j) => j.stream).sort()).toEqual(
        KINDS.flatMap((k) => [fx.keys.jobs(k, 'v1'), fx.keys.jobs(k, 'v1', 'high')]).sort(),
      );

      const loss = createStreamsDataLossDetector(rt.redis, fx.keys, rt.dispatcher.knownStreams);
      expect(await loss.lost()).toBe(true); // never marked
      await loss.mark();
      expect(await loss.lost()).toBe(false);
      // The master of one kind loses its data (as a failover to an empty replica would): the
      // marker lives elsewhere, the check must still see that kind's streams gone.
      const victim = await fx.cluster.masterOf(fx.keys.jobs('xp.paid', 'v1'));
      expect(victim).not.toBe(await fx.cluster.masterOf(fx.keys.generation));
      const node = nodeClient(victim);
      await node.flushall();
      node.disconnect();
      expect(await loss.lost()).toBe(true);
    } finally {
      await rt.close();
    }
  });

  it('refuses a malformed cluster URL, naming the field', () => {
    const bad = ValkeyStreamsOptions.safeParse({ url: 'redis+cluster://10.0.0.1:6379,nohost' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['url']);
    expect(bad.error?.issues[0]?.message).toMatch(/"nohost" is not host:port/);
    const ok = ValkeyStreamsOptions.safeParse({ url: 'redis+cluster://10.0.0.1:6379,h2:7000' });
    expect(ok.success).toBe(true);
  });
});
