// `@sluice/storage/d1`: what runs inside workerd — the job database on a D1 binding (same schema,
// migrations and repositories as SQLite; every write one statement or one batch), the write
// model, the R2 blob store and WebCrypto API keys. It is the portable entry (portable.ts): no
// Node built-in, no database driver; src/d1-bundle.test.ts builds it for workerd and checks.
//
// Left out, because it needs Node's crypto synchronously: `blobs/blob-keys.ts` (use
// `assetKeyWeb` here, pinned to `assetKey`; the other key builders move over when needed).
export * from './portable.js';
