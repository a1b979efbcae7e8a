// Child process for the cross-process claim race: claims until nothing is left, and prints what
// it got as one JSON line. A claim is the start itself (one statement), so "claimed" = "started".
import { existsSync } from 'node:fs';
import { openDatabase } from '../open-database.js';
import { claimJobs } from '../write-model/claim-jobs.js';

const url = process.env.DB_URL as string;
const owner = process.env.OWNER as string;
const database = openDatabase({ url, poolSize: 2 });
const claimed: string[] = [];
process.stdout.write('READY\n');
// Both children start claiming when the parent creates the go-file, so they really race.
while (!existsSync(process.env.GO_FILE as string)) await new Promise((r) => setTimeout(r, 5));
for (let empty = 0; empty < 3;) {
  const batch = await claimJobs(database, {
    versions: [{ kind: 'demo.race', version: 'v1' }],
    owner,
    leaseMs: 60_000,
    limit: 7,
  });
  if (batch.length === 0) {
    empty++;
    continue;
  }
  claimed.push(...batch.map((c) => c.job.id));
  // A little work per batch keeps the race open for ~2 s in all: on a loaded machine one child
  // can wake from the go-file hundreds of ms after the other, which must not drain it alone.
  await new Promise((r) => setTimeout(r, 70));
}
process.stdout.write(`RESULT ${JSON.stringify({ claimed })}\n`);
await database.close();
