// The workerd entry (`@sluice/storage/d1`: D1 database, write model, R2 blob store) bundles for
// workerd with nothing from Node: no `node:` built-in, no pg, better-sqlite3 or iovalkey. Built
// the way wrangler builds a Worker (esbuild, browser platform, the `workerd`/`worker` export
// conditions, `cloudflare:*` left to the runtime), then read back: a value import that slips in
// (a driver, `node:crypto` for a hash) fails here, long before a deploy would.
import { bundleForWorkerd, type WorkerdBundle } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';

const FORBIDDEN =
  /^(node:|pg$|pg\/|pg-|better-sqlite3|iovalkey|fs$|path$|crypto$|os$|child_process$)/;

function bundle(entry: string): Promise<WorkerdBundle> {
  return bundleForWorkerd(new URL(entry, import.meta.url));
}

describe('the workerd entry bundles without Node', () => {
  it('@sluice/storage/d1 pulls in no Node built-in and no database driver', async () => {
    const b = await bundle('./d1.ts');
    expect(b.imports.filter((p) => FORBIDDEN.test(p))).toEqual([]);
    expect(b.inputs.filter((p) => /node_modules\/(pg|better-sqlite3|iovalkey)\//.test(p))).toEqual(
      [],
    );
    // anything left external in the output (kysely's doc comments mention node:fs: not code)
    expect(b.text).not.toMatch(/^\s*(import|export)\b[^;]*?from\s*["'](?!cloudflare:)/m);
    expect(b.text).not.toMatch(/\b(require|import)\(\s*["']node:/);
    // what it is made of: storage sources, kysely, kysely-d1, the contracts and zod
    expect(b.inputs.some((p) => p.includes('d1/open-d1.ts'))).toBe(true);
    expect(b.inputs.some((p) => p.includes('blobs/r2-blob-store.ts'))).toBe(true);
    console.log(
      `@sluice/storage/d1 bundle: ${(b.bytes / 1024).toFixed(0)} KiB, ${b.inputs.length} inputs`,
    );
  });

  it('the check itself fails on an entry that imports a driver (the root entry)', async () => {
    const b = await bundle('./index.ts').catch((error: Error) => ({ error }));
    // The root entry cannot even bundle for workerd (better-sqlite3 and pg need Node), or if it
    // does, it carries them: either way the d1 entry's check above would have caught it.
    if ('error' in b) expect(String(b.error)).toMatch(/node:|better-sqlite3|pg|Could not resolve/);
    else expect(b.imports.filter((p) => FORBIDDEN.test(p)).length).toBeGreaterThan(0);
  });
});
