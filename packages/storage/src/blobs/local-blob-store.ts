// Blobs as files under one root folder. Writes go to a temporary file and are renamed into
// place, so a reader never sees a partial blob; publish uses link(), which fails if the target
// exists: an atomic write-if-absent.

import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { link, mkdir, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { SluiceError } from '@sluice/contracts';
import { assertBlobKey } from './blob-keys.js';
import type { BlobBody, BlobStore, PutResult } from './blob-store.js';

export function createLocalBlobStore(root: string): BlobStore {
  const base = resolve(root);
  const tmpDir = join(base, '.tmp');

  function pathOf(key: string): string {
    const p = resolve(base, assertBlobKey(key));
    if (!p.startsWith(base + sep))
      throw new SluiceError('BAD_REQUEST', `blob key escapes the store: "${key}"`);
    return p;
  }

  async function put(
    key: string,
    body: BlobBody,
    opts: { maxBytes?: number; signal?: AbortSignal } = {},
  ): Promise<PutResult> {
    const target = pathOf(key);
    await mkdir(tmpDir, { recursive: true });
    const tmp = join(tmpDir, randomUUID());
    const hash = createHash('sha256');
    let size = 0;
    const out = createWriteStream(tmp);
    const closed = new Promise<void>((ok, fail) => {
      out.once('close', ok);
      out.once('error', fail);
    });
    try {
      const source =
        Symbol.asyncIterator in body
          ? (body as AsyncIterable<Uint8Array>)
          : Readable.fromWeb(body as never);
      for await (const chunk of source as AsyncIterable<Uint8Array>) {
        opts.signal?.throwIfAborted();
        size += chunk.byteLength;
        if (opts.maxBytes !== undefined && size > opts.maxBytes) {
          throw new SluiceError('PAYLOAD_TOO_LARGE', `body exceeds ${opts.maxBytes} bytes`, {
            details: { maxBytes: opts.maxBytes },
          });
        }
        hash.update(chunk);
        if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      }
      out.end();
      await closed;
      await mkdir(dirname(target), { recursive: true });
      await rename(tmp, target);
      return { size, sha256: hash.digest('hex') };
    } catch (error) {
      out.destroy();
      await closed.catch(() => {});
      await rm(tmp, { force: true });
      throw error;
    }
  }

  return {
    capabilities: { atomicPublish: true },
    put,
    async get(key) {
      const p = pathOf(key);
      try {
        await stat(p);
      } catch {
        return undefined;
      }
      return Readable.toWeb(createReadStream(p)) as ReadableStream<Uint8Array>;
    },
    async stat(key) {
      try {
        const s = await stat(pathOf(key));
        return s.isFile() ? { size: s.size } : undefined;
      } catch {
        return undefined;
      }
    },
    async delete(key) {
      try {
        await unlink(pathOf(key));
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
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
        throw error;
      }
      await unlink(src);
      return 'published';
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
