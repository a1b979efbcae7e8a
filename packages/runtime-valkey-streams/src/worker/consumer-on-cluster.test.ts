// The consumer's own multi-key work on a real Redis Cluster: a read over versions on different
// masters (one band script per slot), and a dead letter, whose script writes the job stream and
// its dead-letter stream in one step (both under the `{kind:version}` tag, so one slot).

import { formatJobId } from '@sluice/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createStreamsClusterFixture,
  type StreamsClusterFixture,
} from '../testing/streams-cluster-fixture.js';
import { createStreamsRuntime } from './create-streams-runtime.js';

// Slots 8667 and 3391: two masters.
const VERSIONS = [
  { kind: 'xp.paid', version: 'v1' },
  { kind: 'xp.paide', version: 'v1' },
];

describe('the Streams consumer on a Redis Cluster', () => {
  let fx: StreamsClusterFixture;
  beforeAll(async () => {
    fx = await createStreamsClusterFixture();
  });
  afterAll(async () => {
    await fx?.dispose();
  });

  it('reads versions on two masters and dead-letters into the same slot', async () => {
    const consumer = createStreamsRuntime({
      connections: fx.connections(),
      workerId: 'cl-consumer',
      versions: VERSIONS,
      blockMs: 100,
      maintainEveryMs: 0,
    });
    try {
      await consumer.init();
      const masters = await Promise.all(
        VERSIONS.map((v) => fx.cluster.masterOf(fx.keys.jobs(v.kind, v.version))),
      );
      expect(new Set(masters).size).toBe(2);
      await fx.dispatch(
        VERSIONS.map((v) => ({
          jobId: formatJobId('v1'),
          kind: v.kind,
          version: v.version,
          tenantId: 'acme',
        })),
      );
      const got = [];
      for (let i = 0; i < 20 && got.length < 2; i++) got.push(...(await consumer.read(2)));
      expect(got.map((d) => d.pointer?.kind).sort()).toEqual(['xp.paid', 'xp.paide']);
      for (const d of got) await consumer.deadLetter(d, 'attempt limit');
      for (const v of VERSIONS) {
        expect(await fx.redis.xlen(fx.keys.deadLetters(v.kind, v.version))).toBe(1);
        expect(await fx.outstanding([fx.keys.jobs(v.kind, v.version)])).toBe(0);
      }
    } finally {
      await consumer.close();
    }
  });
});
