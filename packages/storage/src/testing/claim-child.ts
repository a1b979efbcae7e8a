// Child process for the cross-process claim race: claims until the queue is empty, starting each
// claimed job (a compare-and-set), and prints what it got as one JSON line.
import { openDatabase } from '../database.js';
import { claim } from '../repos/queue.js';
import { transitionJob } from '../repos/jobs.js';

const url = process.env.DB_URL as string;
const owner = process.env.OWNER as string;
const database = openDatabase({ url, poolSize: 2 });
const claimed: string[] = [];
const started: string[] = [];
process.stdout.write('READY\n');
// Both children start claiming when the parent creates the go-file, so they really race.
const { existsSync } = await import('node:fs');
while (!existsSync(process.env.GO_FILE as string)) await new Promise((r) => setTimeout(r, 5));
for (let empty = 0; empty < 3;) {
  const batch = await claim(database.db, {
    versions: [{ kind: 'demo.race', version: 'v1' }],
    owner,
    leaseMs: 60_000,
    limit: 7,
  });
  if (batch.length === 0) {
    empty++;
    continue;
  }
  for (const c of batch) {
    claimed.push(c.pointer.jobId);
    const r = await database.transaction((tx) =>
      transitionJob(tx, { id: c.pointer.jobId, event: 'start' }),
    );
    if (r.ok) started.push(c.pointer.jobId);
    // A little work per job keeps the race open for ~2 s in all: on a loaded machine one child
    // can wake from the go-file hundreds of ms after the other, which must not drain the queue alone.
    await new Promise((r) => setTimeout(r, 10));
  }
}
process.stdout.write(`RESULT ${JSON.stringify({ claimed, started })}\n`);
await database.close();
