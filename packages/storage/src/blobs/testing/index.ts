// `@sluice/storage/testing/blobs`: the runtime-neutral blob store conformance suite and its test
// bodies, for every BlobStore adapter (including ones that run in workerd).
export * from './blob-store-suite.js';
export * from './blob-bytes.js';
