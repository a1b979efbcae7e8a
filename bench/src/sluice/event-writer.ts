// Row 8's writer, in the parent: its own database handle (as a worker process would have) moves
// each watched job `queued → running`, one transaction per job, open loop at a fixed rate, and
// stamps the monotonic time right after each commit. The gateway learns of these events only
// through its tailer (PostgreSQL LISTEN/NOTIFY, the SQLite poll): the path being measured.
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase, transitionJob } from '@sluice/storage';
import { monoMs } from '../harness/clock.js';

export interface WriterResult {
  commits: Map<string, number>;
  lateMaxMs: number;
  failed: number;
  seconds: number;
}

export async function writeStartEvents(
  url: string,
  ids: readonly string[],
  rate: number,
): Promise<WriterResult> {
  const database = openDatabase({ url, poolSize: 2 });
  try {
    await database.db.selectFrom('jobs').select('id').limit(1).execute();
    const commits = new Map<string, number>();
    let lateMaxMs = 0;
    let failed = 0;
    const start = monoMs() + 5;
    for (let i = 0; i < ids.length; i++) {
      const due = start + (i * 1000) / rate;
      const wait = due - monoMs();
      if (wait > 0) await sleep(wait);
      lateMaxMs = Math.max(lateMaxMs, monoMs() - due);
      const id = ids[i] as string;
      const r = await database.transaction((tx) =>
        transitionJob(tx, { id, event: 'start', leaseMs: 600_000 }),
      );
      if (r.ok) commits.set(id, monoMs());
      else failed++;
    }
    return { commits, lateMaxMs, failed, seconds: (monoMs() - start) / 1000 };
  } finally {
    await database.close();
  }
}
