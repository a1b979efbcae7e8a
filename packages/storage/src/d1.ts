// `@sluice/storage/d1`: what runs inside workerd — the job database on a D1 binding (same schema,
// migrations and repositories as SQLite; every write one statement or one batch), the write
// model, and the R2 blob store. No Node built-in, no database driver: src/d1-bundle.test.ts
// builds this entry for workerd and checks.
//
// Left out, because they need Node's crypto synchronously: `repos/api-keys.ts` (sha256 +
// timingSafeEqual; a Workers gateway needs a WebCrypto twin) and `blobs/blob-keys.ts` (use
// `assetKeyWeb` here, pinned to `assetKey`; the other key builders move over when needed).

export type {
  Db,
  DialectName,
  NativeHandle,
  SluiceDatabase,
  DatabaseCapabilities,
} from './database.js';
export * from './d1/d1-like.js';
export * from './d1/open-d1.js';
export * from './migrations.js';
export * from './schema.js';
export * from './json.js';
export * from './dialect.js';
export * from './repos/job-row.js';
export * from './repos/jobs.js';
export * from './repos/events.js';
export * from './repos/files.js';
export * from './repos/queue.js';
export * from './repos/outbox.js';
export * from './repos/limits.js';
export * from './repos/locks.js';
export * from './repos/transition-event.js';
export * from './repos/served-versions.js';
export * from './repos/job-queries.js';
export * from './repos/units.js';
export * from './repos/provider-calls.js';
export * from './repos/assets.js';
export * from './repos/assets-single.js';
export * from './repos/bulk-transitions.js';
export * from './repos/accept-jobs.js';
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
