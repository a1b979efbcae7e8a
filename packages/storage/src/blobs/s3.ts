// `@sluice/storage/s3`: the S3-compatible blob store (loaded on demand by openBlobStore, so the
// AWS SDK is never imported for the local default).
export * from './s3-blob-store.js';
export * from './s3-conditional-probe.js';
