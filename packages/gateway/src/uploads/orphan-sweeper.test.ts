// Crash leftovers of uploads are swept, and nothing in flight is: a temporary file nobody wrote
// for the grace period goes, a fresh one stays; an upload blob without a file row goes only when
// two sweeps a grace apart found it row-less, so a blob whose row lands in between (an upload
// still in flight at the first sweep) stays; a blob with its row is never touched.

import { mkdirSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { insertFile, isoNow, newFileId, uploadKey } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type GatewayFixture } from '../testing/fixture.js';

const HOUR = 60 * 60 * 1000;

describeEachDialect('orphan sweeper', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx(), { uploads: { orphanSweepIntervalMs: 0 } });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('removes stale temp files and row-less upload blobs, never an upload in flight', async () => {
    const kept = (await (
      await fetch(`${f.url}/v1/uploads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${f.keyA}`, 'content-type': 'text/plain' },
        body: 'kept',
      })
    ).json()) as { id: string };
    const orphan = uploadKey('acme', newFileId());
    await f.blobs.put(orphan, new Blob(['crashed before its row']).stream());
    const inFlightId = newFileId();
    const inFlight = uploadKey('acme', inFlightId);
    await f.blobs.put(inFlight, new Blob(['row comes next']).stream());
    const tmp = join(f.blobRoot, '.tmp');
    mkdirSync(tmp, { recursive: true });
    writeFileSync(join(tmp, 'stale'), 'left by kill -9');
    const old = (Date.now() - 2 * HOUR) / 1000;
    utimesSync(join(tmp, 'stale'), old, old);
    writeFileSync(join(tmp, 'writing'), 'an upload in progress');

    const now = Date.now();
    expect(await f.gateway.sweepOrphans(now)).toEqual({ temporaryFiles: 1, orphanBlobs: 0 });
    expect(existsSync(join(tmp, 'stale'))).toBe(false);
    expect(existsSync(join(tmp, 'writing'))).toBe(true);

    // The in-flight upload writes its row; the crashed one never will.
    await insertFile(ctx().database.db, {
      id: inFlightId,
      tenantId: 'acme',
      blobKey: inFlight,
      size: 14,
      sha256: '0'.repeat(64),
      contentType: 'text/plain',
      filename: null,
      createdAt: isoNow(),
      expiresAt: null,
    });
    // Before the grace has passed: still nothing removed.
    expect((await f.gateway.sweepOrphans(now + HOUR - 1000)).orphanBlobs).toBe(0);
    expect(await f.blobs.stat(orphan)).toBeDefined();
    const later = await f.gateway.sweepOrphans(now + HOUR + 1000);
    expect(later.orphanBlobs).toBe(1);
    expect(await f.blobs.stat(orphan)).toBeUndefined();
    expect(await f.blobs.stat(inFlight)).toBeDefined();
    expect(await f.blobs.stat(uploadKey('acme', kept.id))).toBeDefined();
  });
});
