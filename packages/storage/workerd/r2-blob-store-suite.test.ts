// The shared BlobStore conformance suite's R2 row, in workerd against miniflare's R2 bucket.
// r2-blob-store.test.ts keeps the R2-specific cases (FixedLengthStream puts, multipart parts).
import { describeBlobStore } from '../src/blobs/testing/blob-store-suite.js';
import { createR2BlobStore, R2_PART_BYTES } from '../src/blobs/r2-blob-store.js';
import { bindings } from './bindings.js';

const store = createR2BlobStore(bindings.BLOBS);

describeBlobStore('r2', {
  store: () => store,
  largeObjectBytes: 2 * R2_PART_BYTES + 1024,
  skip: {
    'presigned-get':
      'the R2 binding cannot presign (that needs S3-API credentials; the gateway signs its own links)',
  },
});
