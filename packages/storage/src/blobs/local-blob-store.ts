// Blobs as files under one root folder. Writes go to a temporary file and are renamed into
// place, so a reader never sees a partial blob; publish uses link(), which fails if the target
// exists: an atomic write-if-absent. Each file starts with its metadata (local-blob-header.ts).
// deleteIfMatch reads the write id, then unlinks: two steps (capability `atomicDeleteIfMatch`
// false); keys are never rewritten by the protocols that use it, so the gap is not reachable
// through them.

import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { link, mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { SluiceError } from '@sluice/contracts';
import { assertBlobKey } from './blob-keys.js';
import {
  blobContentType,
  blobNotFound,
  rangeNotSatisfiable,
  resolveBlobRange,
  type BlobBody,
  type BlobObject,
  type BlobRange,
  type BlobStat,
  type BlobStore,
  type PutOptions,
  type PutResult,
} from './blob-store.js';
import { measureBody } from './blob-body.js';
import { encodeHeader, readHeader } from './local-blob-header.js';

function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}

export function createLocalBlobStore(root: string): BlobStore {
  const base = resolve(root);
  const tmpDir = join(base, '.tmp');

  function pathOf(key: string): string {
    const p = resolve(base, assertBlobKey(key));
    if (!p.startsWith(base + sep))
      throw new SluiceError('BAD_REQUEST', `blob key escapes the store: "${key}"`);
    return p;
  }

  /** Metadata and where the body starts, or undefined when the key is missing. */
  async function inspect(
    key: string,
  ): Promise<{ path: string; stat: BlobStat; bodyStart: number } | undefined> {
    const path = pathOf(key);
    let file;
    try {
      file = await open(path, 'r');
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    try {
      const s = await file.stat();
      if (!s.isFile()) return undefined;
      const { header, bodyStart } = await readHeader(file, s);
      return {
        path,
        bodyStart,
        stat: { size: s.size - bodyStart, contentType: header.contentType, etag: header.etag },
      };
    } finally {
      await file.close();
    }
  }

  async function put(key: string, body: BlobBody, opts: PutOptions = {}): Promise<PutResult> {
    const target = pathOf(key);
    const contentType = blobContentType(opts.contentType);
    const etag = `"${randomUUID()}"`;
    await mkdir(tmpDir, { recursive: true });
    const tmp = join(tmpDir, randomUUID());
    const measured = measureBody(body, opts);
    const out = createWriteStream(tmp);
    const closed = new Promise<void>((ok, fail) => {
      out.once('close', ok);
      out.once('error', fail);
    });
    try {
      opts.signal?.throwIfAborted();
      out.write(encodeHeader({ contentType, etag }));
      for await (const chunk of measured.chunks) {
        if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      }
      out.end();
      await closed;
      await mkdir(dirname(target), { recursive: true });
      await rename(tmp, target);
      return { size: measured.size(), sha256: measured.sha256(), etag };
    } catch (error) {
      out.destroy();
      await closed.catch(() => {});
      await rm(tmp, { force: true });
      throw error;
    }
  }

  async function openBlob(
    key: string,
    opts: { range?: BlobRange | undefined } = {},
  ): Promise<BlobObject> {
    const found = await inspect(key);
    if (!found) throw blobNotFound(key);
    const range = resolveBlobRange(opts.range, found.stat.size);
    if (!range) throw rangeNotSatisfiable(found.stat.size);
    const start = found.bodyStart + range.offset;
    // createReadStream's `end` is inclusive; an empty range reads nothing.
    const body =
      range.length === 0
        ? new Blob([]).stream()
        : (Readable.toWeb(
            createReadStream(found.path, { start, end: start + range.length - 1 }),
          ) as ReadableStream<Uint8Array>);
    return { ...found.stat, body, range };
  }

  return {
    capabilities: { atomicPublish: true, atomicDeleteIfMatch: false, presignGet: false },
    put,
    open: openBlob,
    async get(key) {
      try {
        return (await openBlob(key)).body;
      } catch (error) {
        if ((error as SluiceError).code === 'NOT_FOUND') return undefined;
        throw error;
      }
    },
    async stat(key) {
      return (await inspect(key))?.stat;
    },
    async delete(key) {
      try {
        await unlink(pathOf(key));
        return true;
      } catch (error) {
        if (isNotFound(error)) return false;
        throw error;
      }
    },
    async deleteIfMatch(key, etag) {
      const found = await inspect(key);
      if (!found) return 'missing';
      if (found.stat.etag !== etag) return 'not_owner';
      try {
        await unlink(found.path);
        return 'deleted';
      } catch (error) {
        if (isNotFound(error)) return 'missing';
        throw error;
      }
    },
    async publish(from, to) {
      const src = pathOf(from);
      const dst = pathOf(to);
      await mkdir(dirname(dst), { recursive: true });
      try {
        await link(src, dst);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return 'exists';
        if (isNotFound(error)) throw blobNotFound(from);
        throw error;
      }
      await unlink(src);
      return 'published';
    },
    async sweepTemporary(olderThanMs, now = Date.now()) {
      let names: string[];
      try {
        names = await readdir(tmpDir);
      } catch (error) {
        if (isNotFound(error)) return 0;
        throw error;
      }
      let removed = 0;
      for (const name of names) {
        const path = join(tmpDir, name);
        const info = await stat(path).catch(() => undefined);
        if (!info || now - info.mtimeMs < olderThanMs) continue;
        await rm(path, { force: true });
        removed++;
      }
      return removed;
    },
    async *list(prefix) {
      const start = resolve(base, prefix.split('/').slice(0, -1).join('/') || '.');
      if (!start.startsWith(base)) return;
      const walk = async function* (dir: string): AsyncGenerator<string> {
        let entries;
        try {
          entries = await readdir(dir, { withFileTypes: true });
        } catch {
          return;
        }
        for (const e of entries) {
          const full = join(dir, e.name);
          if (full === tmpDir) continue;
          if (e.isDirectory()) yield* walk(full);
          else {
            const key = relative(base, full).split(sep).join('/');
            if (key.startsWith(prefix)) yield key;
          }
        }
      };
      yield* walk(start);
    },
  };
}
