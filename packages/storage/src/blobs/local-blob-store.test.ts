import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import fc from 'fast-check';
import { formatJobId } from '@sluice/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import { assetKey, assertBlobKey, stagingKey, uploadKey } from './blob-keys.js';
import { createLocalBlobStore } from './local-blob-store.js';

const root = mkdtempSync(join(tmpdir(), 'sluice-blobs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const store = createLocalBlobStore(root);

async function* chunks(n: number, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < n; i++) yield new Uint8Array(size).fill(97);
}

describe('local blob store', () => {
  it('streams a body in, with size and sha256, and reads it back', async () => {
    const r = await store.put('t/acme/uploads/f_a', chunks(3, 4));
    expect(r.size).toBe(12);
    const { createHash } = await import('node:crypto');
    expect(r.sha256).toBe(createHash('sha256').update('a'.repeat(12)).digest('hex'));
    expect(await store.stat('t/acme/uploads/f_a')).toEqual({ size: 12 });
    expect(await new Response((await store.get('t/acme/uploads/f_a'))!).text()).toBe(
      'a'.repeat(12),
    );
    expect(await store.get('t/acme/uploads/missing')).toBeUndefined();
    expect(await store.stat('t/acme/uploads/missing')).toBeUndefined();
  });
  it('accepts a web ReadableStream body', async () => {
    const body = new Blob(['hello']).stream();
    expect((await store.put('t/acme/uploads/f_web', body)).size).toBe(5);
  });
  it('cuts a body at the first byte over the limit and leaves nothing behind', async () => {
    await expect(
      store.put('t/acme/uploads/f_big', chunks(10, 100), { maxBytes: 250 }),
    ).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(await store.stat('t/acme/uploads/f_big')).toBeUndefined();
    expect(readdirSync(join(root, '.tmp'))).toEqual([]);
    // exactly at the limit is fine
    expect((await store.put('t/acme/uploads/f_edge', chunks(1, 250), { maxBytes: 250 })).size).toBe(
      250,
    );
  });
  it('publishes write-if-absent: a published key is never overwritten', async () => {
    await store.put('staging/a1', chunks(1, 3));
    await store.put(
      'staging/a2',
      (async function* () {
        yield new TextEncoder().encode('zzz');
      })(),
    );
    expect(await store.publish('staging/a1', 'final/x')).toBe('published');
    expect(await store.stat('staging/a1')).toBeUndefined();
    expect(await store.publish('staging/a2', 'final/x')).toBe('exists');
    expect(await new Response((await store.get('final/x'))!).text()).toBe('aaa');
    expect(await store.stat('staging/a2')).toEqual({ size: 3 });
    expect(await store.delete('staging/a2')).toBe(true);
    expect(await store.delete('staging/a2')).toBe(false);
  });
  it('lists keys under a prefix', async () => {
    await store.put('list/p/one', chunks(1, 1));
    await store.put('list/p/two', chunks(1, 1));
    await store.put('list/q/three', chunks(1, 1));
    const keys: string[] = [];
    for await (const k of store.list('list/p/')) keys.push(k);
    expect(keys.sort()).toEqual(['list/p/one', 'list/p/two']);
  });
  it('refuses keys that could escape the root', async () => {
    for (const k of [
      '../x',
      'a/../../x',
      '/etc/passwd',
      'a//b',
      'a/./b',
      '',
      'a\\b',
      'a/b/',
      '.tmp/x'.replace('.tmp', '..'),
    ]) {
      await expect(store.put(k, chunks(1, 1))).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    }
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
