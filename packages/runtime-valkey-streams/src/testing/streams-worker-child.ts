// A worker on the valkey-streams runtime as its own OS process, for the cross-process tests: the
// worker's `xp.work` child (worker-child.ts: DB_URL, WORKER_ID, UNITS, UNIT_MS, GO_FILE, its
// READY/STARTED/UNIT/SETTLED lines) on this package's consumer (paid-runtime.ts: REDIS_URL, a
// private redis-server or a fault proxy in front of it, and the timings tests tune).
import { WORKER_CHILD } from '@sluice/worker/conformance';
import { PAID_CHILD_RUNTIME } from './paid-runtime-entry.js';

process.env.RUNTIME_MODULE = PAID_CHILD_RUNTIME.pathname;
await import(WORKER_CHILD.href);
