import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import fc from 'fast-check';
import { formatJobId } from '@sluice/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import { assetKey, assertBlobKey, stagingKey, uploadKey } from './blob-keys.js';
import { createLocalBlobStore } from './local-blob-store.js';
import { describeBlobStore } from './testing/blob-store-suite.js';
import { folderBytes } from './testing/node-fixtures.js';

const root = mkdtempSync(join(tmpdir(), 'sluice-blobs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const store = createLocalBlobStore(root);

async function* chunks(n: number, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < n; i++) yield new Uint8Array(size).fill(97);
}

describeBlobStore('local folder', {
  store: () => store,
  largeObjectBytes: 12 * 1024 * 1024,
  storedBytes: () => folderBytes(root),
});

describe('local blob store', () => {
  it('leaves no temporary file behind a refused or aborted write', async () => {
    await expect(
      store.put('t/acme/uploads/f_big', chunks(10, 100), { maxBytes: 250 }),
    ).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(readdirSync(join(root, '.tmp'))).toEqual([]);
  });
  it('reads a file written before blob headers existed as plain bytes', async () => {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(join(root, 'legacy'), { recursive: true });
    writeFileSync(join(root, 'legacy', 'old'), 'raw bytes');
    const stat = await store.stat('legacy/old');
    expect(stat).toMatchObject({ size: 9, contentType: 'application/octet-stream' });
    expect(await new Response((await store.get('legacy/old'))!).text()).toBe('raw bytes');
    expect(await store.deleteIfMatch('legacy/old', stat!.etag)).toBe('deleted');
  });
  it('refuses a key that spells a dot segment', async () => {
    await expect(store.put('..', chunks(1, 1))).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});

describe('blob keys', () => {
  const job = formatJobId('v1');
  it('are built from server ids only and stay inside the tenant prefix', () => {
    expect(uploadKey('acme', 'f_abc')).toBe('t/acme/uploads/f_abc');
    expect(assetKey('acme', job, 'scene-1', 'out.mp4')).toMatch(
      new RegExp(`^t/acme/j/${job}/assets/[0-9a-f]{32}/out\\.mp4$`),
    );
    expect(assetKey('acme', job, 'scene-1', 'out.mp4')).toBe(
      assetKey('acme', job, 'scene-1', 'out.mp4'),
    );
    expect(assetKey('acme', job, 'scene-1', 'out.mp4')).not.toBe(
      assetKey('acme', job, 'scene-2', 'out.mp4'),
    );
    expect(stagingKey('acme', job, 'att1', 'tok')).toBe(`staging/t/acme/j/${job}/att1/tok`);
  });
  it('no hostile name, unit key or id ever escapes (10,000 cases)', () => {
    const hostile = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.constantFrom(
        '../',
        '..\\',
        '%2e%2e%2f',
        '\u0000',
        '/abs',
        '．．／',
        'a/../../b',
        '.',
        '..',
        'con',
        'x'.repeat(4096),
      ),
    );
    fc.assert(
      fc.property(hostile, hostile, (unit, name) => {
        let key: string | undefined;
        try {
          key = assetKey('acme', job, unit, name);
        } catch {
          return; // refused: fine
        }
        assertBlobKey(key);
        expect(key.startsWith(`t/acme/j/${job}/assets/`)).toBe(true);
        const p = resolve(root, key);
        expect(p.startsWith(root + sep)).toBe(true);
      }),
      { numRuns: 10_000 },
    );
    for (const t of ['../x', 'a/b', '']) expect(() => uploadKey(t, 'f_a')).toThrow();
    for (const f of ['../x', 'F_A', 'a/b']) expect(() => uploadKey('acme', f)).toThrow();
    expect(() => assetKey('acme', 'not-a-job', 'u', 'n')).toThrow();
    expect(() => stagingKey('acme', job, '../a', 't')).toThrow();
  });
});
