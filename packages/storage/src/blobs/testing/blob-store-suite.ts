// The one conformance suite every BlobStore adapter runs (local folder, S3-compatible, R2). It is
// runtime-neutral on purpose: web streams, `crypto.subtle` and vitest only, no `node:` import,
// so an adapter that lives in workerd runs it too. Whatever is environment-specific comes in
// through the fixture; a case an adapter cannot run is skipped with its reason, never silently.
//
//   describeBlobStore('local', { store: () => createLocalBlobStore(dir), largeObjectBytes: … });

import { isSluiceError } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import type { BlobStore } from '../blob-store.js';
import { checkPattern, chunksOf, patternStream, sha256Hex, textOf } from './blob-bytes.js';

export const BLOB_STORE_CASES = [
  'round-trip',
  'content-metadata',
  'over-limit',
  'aborted-put',
  'large-object-streams',
  'ranged-reads',
  'missing-keys',
  'put-if-absent-publish',
  'concurrent-publish',
  'delete-if-match',
  'list-prefix',
  'invalid-keys',
  'cancelled-read',
  'presigned-get',
] as const;
export type BlobStoreCase = (typeof BLOB_STORE_CASES)[number];

export interface BlobStoreSuiteFixture {
  /** The store under test. May answer the same store every time: each case uses its own prefix. */
  store(): BlobStore;
  /** An object that spans several multipart parts of this store (local: any few MiB). */
  largeObjectBytes: number;
  /**
   * Every byte the backend holds, finished writes or not (local: files under the root; S3: the
   * server's data folder). With it, "large-object-streams" checks that bytes reach the backend
   * before the body ends; without it that check is skipped (the read-back still runs).
   */
  storedBytes?: () => Promise<number>;
  /** Fetch for presigned URLs (default: the global fetch). */
  fetch?: typeof globalThis.fetch;
  /** Pause used while waiting for the backend (default: setTimeout). */
  sleep?: (ms: number) => Promise<void>;
  /** Cases this adapter cannot run, each with its reason. */
  skip?: Partial<Record<BlobStoreCase, string>>;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isSluiceError(error)) return error.code;
    throw error;
  }
  throw new Error('expected a SluiceError');
}

async function keysUnder(store: BlobStore, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of store.list(prefix)) keys.push(key);
  return keys.sort();
}

export function describeBlobStore(name: string, fixture: BlobStoreSuiteFixture): void {
  const sleep = fixture.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const prefix = () => `suite/${crypto.randomUUID()}`;

  describe(`BlobStore conformance: ${name}`, () => {
    const test = (c: BlobStoreCase, title: string, body: () => Promise<void>, timeout?: number) => {
      const reason = fixture.skip?.[c];
      if (reason !== undefined) it.skip(`${c}: ${title} (skipped: ${reason})`, body);
      else it(`${c}: ${title}`, body, timeout);
    };

    test(
      'round-trip',
      'streams in (web stream or async iterable) with size and sha256',
      async () => {
        const s = fixture.store();
        const p = prefix();
        const a = await s.put(`${p}/a`, chunksOf('hello, ', 'sluice'));
        expect(a).toMatchObject({ size: 13, sha256: await sha256Hex('hello, sluice') });
        expect(a.etag).not.toBe('');
        const b = await s.put(`${p}/b`, new Blob(['web stream']).stream());
        expect(b.size).toBe(10);
        expect(await textOf((await s.get(`${p}/a`))!)).toBe('hello, sluice');
        expect(await textOf((await s.get(`${p}/b`))!)).toBe('web stream');
        const empty = await s.put(`${p}/empty`, chunksOf());
        expect(empty).toMatchObject({ size: 0, sha256: await sha256Hex('') });
        expect(await textOf((await s.open(`${p}/empty`)).body)).toBe('');
        // Writing a key again replaces it (publish is the only write-if-absent).
        const again = await s.put(`${p}/a`, chunksOf('second'));
        expect(again.etag).not.toBe(a.etag);
        expect(await textOf((await s.get(`${p}/a`))!)).toBe('second');
      },
    );

    test(
      'content-metadata',
      'keeps content type and length, answers both on stat and open',
      async () => {
        const s = fixture.store();
        const p = prefix();
        const put = await s.put(`${p}/doc`, chunksOf('{"ok":true}'), {
          contentType: 'application/json',
        });
        const stat = await s.stat(`${p}/doc`);
        expect(stat).toEqual({ size: 11, contentType: 'application/json', etag: put.etag });
        const obj = await s.open(`${p}/doc`);
        expect(obj).toMatchObject({ size: 11, contentType: 'application/json', etag: put.etag });
        expect(obj.range).toEqual({ offset: 0, length: 11 });
        expect(await textOf(obj.body)).toBe('{"ok":true}');
        await s.put(`${p}/plain`, chunksOf('x'));
        expect((await s.stat(`${p}/plain`))?.contentType).toBe('application/octet-stream');
      },
    );

    test(
      'over-limit',
      'cuts a body at the first byte over maxBytes and keeps nothing',
      async () => {
        const s = fixture.store();
        const p = prefix();
        const over = s.put(`${p}/big`, patternStream(300, { chunkBytes: 100 }), { maxBytes: 250 });
        expect(await codeOf(over)).toBe('PAYLOAD_TOO_LARGE');
        expect(await s.stat(`${p}/big`)).toBeUndefined();
        const edge = await s.put(`${p}/edge`, patternStream(250, { chunkBytes: 100 }), {
          maxBytes: 250,
        });
        expect(edge.size).toBe(250);
        expect(await keysUnder(s, `${p}/`)).toEqual([`${p}/edge`]);
      },
    );

    test('aborted-put', 'an aborted write stores nothing', async () => {
      const s = fixture.store();
      const p = prefix();
      const abort = new AbortController();
      const body = patternStream(1024 * 1024, {
        chunkBytes: 16 * 1024,
        beforeChunk: (n) => {
          if (n >= 64 * 1024) abort.abort(new Error('client went away'));
        },
      });
      await expect(s.put(`${p}/gone`, body, { signal: abort.signal })).rejects.toThrow();
      expect(await s.stat(`${p}/gone`)).toBeUndefined();
      expect(await keysUnder(s, `${p}/`)).toEqual([]);
    });

    test(
      'large-object-streams',
      'a body larger than a multipart part streams in and out, never held whole',
      async () => {
        const s = fixture.store();
        const key = `${prefix()}/large`;
        const size = fixture.largeObjectBytes;
        const before = fixture.storedBytes ? await fixture.storedBytes() : 0;
        let reached = !fixture.storedBytes;
        // Three quarters into the body, the backend must already hold some of it: a store that
        // buffers the whole body before writing never gets there and this put fails.
        const beforeChunk = async (produced: number) => {
          if (reached || produced < size * 0.75) return;
          for (let waited = 0; waited < 15_000; waited += 25) {
            if ((await fixture.storedBytes!()) > before) {
              reached = true;
              return;
            }
            await sleep(25);
          }
          throw new Error(`no byte reached the backend after ${produced} of ${size} bytes`);
        };
        const put = await s.put(key, patternStream(size, { chunkBytes: 256 * 1024, beforeChunk }));
        expect(reached).toBe(true);
        expect(put.size).toBe(size);
        const whole = await s.open(key);
        expect(whole.size).toBe(size);
        const read = await checkPattern(whole.body);
        expect(read.size).toBe(size);
        expect(read.chunks).toBeGreaterThan(1);
        expect((await s.stat(key))?.etag).toBe(put.etag);
      },
      60_000,
    );

    test(
      'ranged-reads',
      'reads byte ranges, clamps a long one, refuses one past the end',
      async () => {
        const s = fixture.store();
        const key = `${prefix()}/ranged`;
        const size = 200_000;
        await s.put(key, patternStream(size, { chunkBytes: 30_000 }));
        const mid = await s.open(key, { range: { offset: 65_530, length: 20 } });
        expect(mid.range).toEqual({ offset: 65_530, length: 20 });
        expect(mid.size).toBe(size);
        expect(await checkPattern(mid.body, 65_530)).toMatchObject({ size: 20 });
        const tail = await s.open(key, { range: { offset: size - 5 } });
        expect(tail.range).toEqual({ offset: size - 5, length: 5 });
        expect((await checkPattern(tail.body, size - 5)).size).toBe(5);
        const clamped = await s.open(key, { range: { offset: size - 3, length: 100 } });
        expect(clamped.range).toEqual({ offset: size - 3, length: 3 });
        expect((await checkPattern(clamped.body, size - 3)).size).toBe(3);
        const first = await s.open(key, { range: { offset: 0, length: 1 } });
        expect((await checkPattern(first.body, 0)).size).toBe(1);
        expect(await codeOf(s.open(key, { range: { offset: size } }))).toBe(
          'RANGE_NOT_SATISFIABLE',
        );
        expect(await codeOf(s.open(key, { range: { offset: size + 10, length: 1 } }))).toBe(
          'RANGE_NOT_SATISFIABLE',
        );
      },
    );

    test(
      'missing-keys',
      'a missing key answers undefined, false or a typed NOT_FOUND',
      async () => {
        const s = fixture.store();
        const key = `${prefix()}/missing`;
        expect(await s.get(key)).toBeUndefined();
        expect(await s.stat(key)).toBeUndefined();
        expect(await codeOf(s.open(key))).toBe('NOT_FOUND');
        expect(await codeOf(s.open(key, { range: { offset: 0, length: 1 } }))).toBe('NOT_FOUND');
        expect(await s.delete(key)).toBe(false);
        expect(await s.deleteIfMatch(key, '"anything"')).toBe('missing');
        expect(await codeOf(s.publish(key, `${key}-final`))).toBe('NOT_FOUND');
        expect(await s.stat(`${key}-final`)).toBeUndefined();
      },
    );

    test(
      'put-if-absent-publish',
      'a second publish of the same key reports exists and overwrites nothing',
      async () => {
        const s = fixture.store();
        const p = prefix();
        await s.put(`${p}/staging-1`, chunksOf('first'), { contentType: 'text/plain' });
        await s.put(`${p}/staging-2`, chunksOf('second!'));
        expect(await s.publish(`${p}/staging-1`, `${p}/final`)).toBe('published');
        expect(await s.stat(`${p}/staging-1`)).toBeUndefined();
        expect(await s.stat(`${p}/final`)).toMatchObject({ size: 5, contentType: 'text/plain' });
        expect(await s.publish(`${p}/staging-2`, `${p}/final`)).toBe('exists');
        expect(await textOf((await s.get(`${p}/final`))!)).toBe('first');
        // The loser's staging blob stays for its owner to delete.
        expect(await textOf((await s.get(`${p}/staging-2`))!)).toBe('second!');
        expect(await s.delete(`${p}/staging-2`)).toBe(true);
        expect(await s.delete(`${p}/staging-2`)).toBe(false);
        expect(await keysUnder(s, `${p}/`)).toEqual([`${p}/final`]);
      },
    );

    test('concurrent-publish', 'of racing publishes to one key exactly one wins', async () => {
      const s = fixture.store();
      const p = prefix();
      const n = 6;
      for (let i = 0; i < n; i++) await s.put(`${p}/s${i}`, chunksOf(`body-${i}`));
      const results = await Promise.all(
        Array.from({ length: n }, (_, i) => s.publish(`${p}/s${i}`, `${p}/final`)),
      );
      expect(results.filter((r) => r === 'published')).toHaveLength(1);
      const winner = results.indexOf('published');
      expect(await textOf((await s.get(`${p}/final`))!)).toBe(`body-${winner}`);
      for (let i = 0; i < n; i++) {
        if (i !== winner) expect(await s.stat(`${p}/s${i}`)).toBeDefined();
      }
    });

    test('delete-if-match', 'an owner deletes only the version it wrote', async () => {
      const s = fixture.store();
      const key = `${prefix()}/owned`;
      const mine = await s.put(key, chunksOf('mine'));
      const theirs = await s.put(key, chunksOf('theirs, written since'));
      expect(await s.deleteIfMatch(key, mine.etag)).toBe('not_owner');
      expect(await textOf((await s.get(key))!)).toBe('theirs, written since');
      expect(await s.deleteIfMatch(key, theirs.etag)).toBe('deleted');
      expect(await s.stat(key)).toBeUndefined();
      expect(await s.deleteIfMatch(key, theirs.etag)).toBe('missing');
    });

    test('list-prefix', 'lists exactly the keys under a prefix', async () => {
      const s = fixture.store();
      const p = prefix();
      for (const k of ['a/one', 'a/two', 'a/deep/three', 'ab/four', 'b/five'])
        await s.put(`${p}/${k}`, chunksOf('x'));
      expect(await keysUnder(s, `${p}/a/`)).toEqual([
        `${p}/a/deep/three`,
        `${p}/a/one`,
        `${p}/a/two`,
      ]);
      expect(await keysUnder(s, `${p}/nothing/`)).toEqual([]);
    });

    test('invalid-keys', 'refuses keys that could escape their prefix', async () => {
      const s = fixture.store();
      for (const k of ['../x', 'a/../../x', '/etc/passwd', 'a//b', 'a/./b', '', 'a\\b', 'a/b/']) {
        expect(await codeOf(s.put(k, chunksOf('x')))).toBe('BAD_REQUEST');
        expect(await codeOf(s.open(k))).toBe('BAD_REQUEST');
      }
    });

    test(
      'cancelled-read',
      'a reader that stops early frees what it held',
      async () => {
        const s = fixture.store();
        const key = `${prefix()}/partly-read`;
        await s.put(key, patternStream(2 * 1024 * 1024));
        // More than any connection pool here holds (S3 keeps 50 sockets): a leaked body per read
        // would hang the loop.
        for (let i = 0; i < 60; i++) {
          const obj = await s.open(key);
          const reader = obj.body.getReader();
          expect((await reader.read()).done).toBe(false);
          await reader.cancel();
        }
        expect((await checkPattern((await s.open(key)).body)).size).toBe(2 * 1024 * 1024);
      },
      60_000,
    );

    test('presigned-get', 'a presigned URL serves the bytes without credentials', async () => {
      const s = fixture.store();
      if (!s.capabilities.presignGet || !s.presignGet) {
        expect(s.presignGet).toBeUndefined();
        return;
      }
      const key = `${prefix()}/signed`;
      await s.put(key, chunksOf('signed bytes'), { contentType: 'text/plain' });
      const url = await s.presignGet(key, {
        expiresInSeconds: 60,
        contentDisposition: 'attachment; filename="x.txt"',
      });
      const f = fixture.fetch ?? globalThis.fetch;
      const res = await f(url);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('signed bytes');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="x.txt"');
      const ranged = await f(url, { headers: { range: 'bytes=7-' } });
      expect(ranged.status).toBe(206);
      expect(await ranged.text()).toBe('bytes');
      const tampered = await f(url.replace('signed', 'signeD'));
      expect(tampered.status).toBeGreaterThanOrEqual(400);
      await tampered.body?.cancel();
    });
  });
}
