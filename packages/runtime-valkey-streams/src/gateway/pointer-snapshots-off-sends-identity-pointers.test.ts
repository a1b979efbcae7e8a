// A rolling upgrade from workers that predate pointer format 2: such a worker refuses a pointer
// with fields it does not know, so a gateway run with `pointerSnapshots: false` must put no
// snapshot field in any entry it adds — neither on a submit (the accept builds none) nor on a
// pointer that arrives with one from another path (the dispatcher strips it). Real redis-server,
// PostgreSQL; entries read back raw with XRANGE.
import { formatJobId } from '@sluice/contracts';
import { describeEachDialect } from '@sluice/storage/testing';
import { startRedisServer, type RedisServer } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startStreamsGateway, type StreamsGatewayFixture } from '../testing/gateway-fixture.js';

describeEachDialect('pointerSnapshots: false', (ctx) => {
  let redis: RedisServer;
  let f: StreamsGatewayFixture;
  beforeAll(async () => {
    redis = await startRedisServer();
    f = await startStreamsGateway(ctx(), redis.url, {
      fairness: { maxUndelivered: 100_000 },
      pointerSnapshots: false,
    });
  });
  afterAll(async () => {
    await f?.close();
    await redis?.stop();
  });

  /** Every field name of every entry of the demo.echo v1 stream. */
  const fieldNames = async () => {
    const entries = (await f.rt.redis.xrange(f.rt.keys.jobs('demo.echo', 'v1'), '-', '+')) as [
      string,
      string[],
    ][];
    return entries.map(([, fields]) => fields.filter((_, i) => i % 2 === 0));
  };

  it('a submit pointer carries only the identity, and the runtime says it does not start from one', async () => {
    expect(f.rt.dispatcher.capabilities.startsFromPointer).toBe(false);
    await f.http(f.keyA).jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'old worker' } });
    const names = await fieldNames();
    expect(names).toHaveLength(1);
    expect(names[0]).toEqual(expect.arrayContaining(['jobId', 'kind', 'version', 'tenantId']));
    expect(names[0]).not.toContain('format');
    expect(names[0]).not.toContain('input');
  });

  it('a pointer handed over with a snapshot goes out without it', async () => {
    const jobId = formatJobId('v1');
    await f.rt.dispatcher.dispatch([
      {
        jobId,
        kind: 'demo.echo',
        version: 'v1',
        tenantId: 'acme',
        snapshot: {
          epoch: 0,
          lastSeq: 2,
          attempts: 0,
          maxAttempts: 3,
          createdAt: new Date().toISOString(),
          inputJson: '{"text":"x"}',
        },
      },
    ]);
    const all = await fieldNames();
    expect(all.at(-1)).not.toContain('format');
    expect(all.flat().filter((n) => n === 'format')).toEqual([]);
  });
});
