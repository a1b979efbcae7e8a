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
