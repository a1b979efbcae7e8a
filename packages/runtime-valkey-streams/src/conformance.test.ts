// The runtime conformance suite for valkey-streams: a private redis-server per run and a fresh
// database (SQLite and PostgreSQL). Every case runs; none is skipped.

import { TEST_DIALECTS } from '@sluice/storage/testing';
import { createStreamsHarness } from './testing/streams-harness.js';
import { runtimeConformance } from '@sluice/worker/conformance';

for (const dialect of TEST_DIALECTS) {
  runtimeConformance(`valkey-streams/${dialect}`, () => createStreamsHarness(dialect));
}
