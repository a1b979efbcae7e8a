// `@sluice/storage/portable`: the repositories and write model that run anywhere — Node, workerd,
// a browser-less edge — with no Node built-in and no database driver (src/d1-bundle.test.ts
// bundles it for workerd). The Workers gateway and runtime import from here (or from `./d1`,
// which is this plus nothing else); the root export adds the drivers, local blobs and the
// Node-crypto API-key functions.
//
// API keys: `repos/api-key-rows.ts` (reads, touches) and `repos/api-keys-web.ts` (WebCrypto
// hashing and verification, byte-identical to the Node functions in `repos/api-keys.ts`).

export type {
  Db,
  DialectName,
  SluiceDatabase,
  DatabaseCapabilities,
  OpenDatabaseOptions,
} from './database.js';
export { writeTogether } from './database.js';
export * from './dialect/storage-dialect.js';
export * from './dialect/d1/d1-like.js';
export * from './dialect/d1/open-d1.js';
export * from './migrations.js';
export * from './schema.js';
export * from './json.js';
export * from './repos/job-row.js';
export * from './repos/jobs.js';
export * from './repos/events.js';
export * from './repos/files.js';
export * from './repos/queue.js';
export * from './repos/outbox.js';
export * from './repos/held-outbox.js';
export * from './repos/limits.js';
export * from './repos/locks.js';
export * from './repos/transition-event.js';
export * from './repos/served-versions.js';
export * from './repos/job-queries.js';
export * from './repos/job-search.js';
export * from './repos/rerun-checkpoints.js';
export * from './repos/audit-log.js';
export * from './repos/bulk-operations.js';
export * from './repos/units.js';
export * from './repos/provider-calls.js';
export * from './repos/assets.js';
export * from './repos/assets-single.js';
export * from './repos/assets-batch.js';
export * from './repos/asset-orphans.js';
export * from './repos/bulk-transitions.js';
export * from './repos/accept-jobs.js';
export * from './repos/accept-rows.js';
export * from './repos/event-rows.js';
export * from './write-model/attempt-write.js';
export * from './write-model/job-snapshot.js';
export * from './write-model/claim-jobs.js';
export * from './write-model/sweep-exhausted.js';
export * from './blobs/blob-store.js';
export * from './blobs/blob-key-pattern.js';
export * from './blobs/asset-key-web.js';
export * from './blobs/staging-key.js';
export * from './blobs/r2-like.js';
export * from './blobs/r2-blob-store.js';
export * from './repos/scheduled-jobs.js';
export * from './repos/schedules.js';
export * from './write-model/age-queued.js';
export * from './repos/api-key-rows.js';
export * from './repos/api-keys-web.js';
export * from './repos/job-hold.js';
export * from './repos/flow-keys.js';
export * from './retention/retention-sweep.js';
export { retentionOverview, type RetentionOverview } from './retention/retention-groups.js';
export { RETENTION_TABLES } from './retention/retention-sql.js';
export { archiveKey } from './retention/retention-archive.js';
export * from './waits/index.js';
