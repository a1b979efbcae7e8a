// The runtime conformance suite on Redis Cluster (3 masters + 3 replicas, PostgreSQL): the same
// cases as on one server, with every consumer on `redis+cluster://` connections, so reads over
// several kinds go out per slot and the blocking read takes the slots in turn.

import { TEST_DIALECTS } from '@sluice/storage/testing';
import { runtimeConformance } from '@sluice/worker/conformance';
import { createStreamsClusterFixture } from './testing/streams-cluster-fixture.js';
import { createStreamsHarness } from './testing/streams-harness.js';

const dialect = TEST_DIALECTS.includes('postgres') ? 'postgres' : 'sqlite';
runtimeConformance(`valkey-streams on a cluster/${dialect}`, () =>
  createStreamsHarness(dialect, createStreamsClusterFixture),
);
