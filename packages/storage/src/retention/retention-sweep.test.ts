// The retention pass on SQLite and PostgreSQL, with a local blob folder (the shared suite:
// retention-sweep.case.ts; D1 with R2 runs it in workerd/storage-d1.test.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createLocalBlobStore } from '../blobs/local-blob-store.js';
import { describeEachDialect } from '../testing/dialects.js';
import { retentionSweepCases } from './retention-sweep.case.js';

describeEachDialect('retention sweep', (ctx, dialect) => {
  const root = mkdtempSync(join(tmpdir(), 'sluice-retention-'));
  const blobs = createLocalBlobStore(root);
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  retentionSweepCases(dialect, ctx, () => blobs);
});
