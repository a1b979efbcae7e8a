// Catches a WAL that grows until SQLite's automatic checkpoint runs inside some commit (and
// stalls that commit's event loop), or without bound: the background thread must keep it small.
// The control run (thread off) shows the same writes do grow it past the bound.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from '@sluice/testkit';
import { sql } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { openDatabase } from '../../open-database.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-wal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function largestWal(name: string, everyMs: number, pauseMs: number): Promise<number> {
  const file = join(dir, `${name}.db`);
  const database = openDatabase({ url: file, walCheckpointEveryMs: everyMs });
  try {
    await sql`create table blobs (id integer primary key, body text)`.execute(database.db);
    const body = 'x'.repeat(100_000);
    let largest = 0;
    for (let i = 0; i < 40; i++) {
      await database.transaction(async (tx) => {
        for (let k = 0; k < 4; k++)
          await sql`insert into blobs (body) values (${body})`.execute(tx);
      });
      largest = Math.max(largest, statSync(`${file}-wal`).size);
      await sleep(pauseMs);
    }
    return largest;
  } finally {
    await database.close();
  }
}

it(
  'a background PASSIVE checkpoint keeps the WAL small while commits go on',
  { timeout: 60_000 },
  async () => {
    const BOUND = 2.5 * 1024 * 1024;
    // Commits 150 ms apart: the thread (every 20 ms) may be starved for most of a second on a
    // loaded machine and still keep up; the bound is six commits' worth of WAL. The control's pause
    // does not matter (nothing checkpoints in it but SQLite's own automatic checkpoint).
    const withThread = await largestWal('thread', 20, 150);
    const without = await largestWal('control', 0, 0);
    expect(without).toBeGreaterThan(BOUND); // 16 MB written: SQLite lets it reach ~4 MB first
    expect(withThread).toBeLessThan(BOUND);
  },
);
