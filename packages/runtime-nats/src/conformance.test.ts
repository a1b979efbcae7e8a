// The runtime conformance suite for nats: a private nats-server per run and a fresh database
// (SQLite and PostgreSQL). Cases a runtime without `prioritizes` cannot honour skip by that flag.

import { TEST_DIALECTS } from '@sluice/storage/testing';
import { runtimeConformance } from '@sluice/worker/conformance';
import { createNatsHarness } from './testing/nats-harness.js';

for (const dialect of TEST_DIALECTS) {
  runtimeConformance(`nats/${dialect}`, () => createNatsHarness(dialect));
}
