// Node-only helpers for running the blob store suite here (the suite itself is runtime-neutral).

import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** Every byte under a folder, unfinished writes included (for the conformance suite). */
export async function folderBytes(root: string): Promise<number> {
  let total = 0;
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const full = join(dir, e.name);
      if (e.isDirectory()) await walk(full);
      else
        total += await stat(full).then(
          (s) => s.size,
          () => 0,
        );
    }
  };
  await walk(resolve(root));
  return total;
}

/** The part of s3rver's API the tests use (it ships no types). */
interface S3rverServer {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}
type S3rverClass = new (options: {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  configureBuckets: { name: string }[];
}) => S3rverServer;

export interface S3Server {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  readonly bucket: string;
  /** Where the server keeps its objects (and unfinished multipart parts). */
  readonly directory: string;
  /** Environment for `openBlobStore('s3://…')` against this server. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A real S3-protocol server (s3rver) on a free loopback port with a private temp folder and one
 * bucket. Its credentials are s3rver's fixed S3RVER/S3RVER pair.
 */
export async function startS3Server(bucket = 'sluice-test'): Promise<S3Server> {
  const { createRequire } = await import('node:module');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;
  const directory = mkdtempSync(join(tmpdir(), 'sluice-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    directory,
    env: {
      SLUICE_S3_ENDPOINT: endpoint,
      SLUICE_S3_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    },
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
