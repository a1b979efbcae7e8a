// Row 3's producer for Sluice Streams: per job, what the gateway's accept + dispatch path does
// without HTTP (row 6 measures that part): ONE transaction with `insertJob` (accepted, event 1),
// the outbox row and the `dispatch` transition (queued, event 2); after commit the dispatch
// stamp, then `XADD` of the pointer (createStreamKeys / encodePointer); the outbox rows are
// deleted in the background every 100 ms (`deleteDispatchedOutbox`), as the gateway's batcher
// does. The entry id's sequence part carries the dispatch stamp (`stampedEntryId`); the harness
// stamps `job.t` before `add`, i.e. before the database write (accept → start).
import { createHash } from 'node:crypto';
import { Redis } from 'iovalkey';
import { createStreamKeys, encodePointer, formatJobId } from '@sluice/contracts';
import {
  addToOutbox,
  deleteDispatchedOutbox,
  insertJob,
  isoNow,
  openDatabase,
  transitionJob,
} from '@sluice/storage';
import type { CreateProducer } from '../adapter.js';
import { monoMs } from '../harness/clock.js';
import { BENCH_KIND, BENCH_TENANT, BENCH_VERSION, benchJob } from '../sluice/bench-job.js';
import { parseStreamsChildConfig, stampedEntryId } from '../sluice/streams-config.js';

const OUTBOX_DELETE_MS = 100;

export const createProducer: CreateProducer = async (init) => {
  const cfg = parseStreamsChildConfig(init.config);
  const keys = createStreamKeys();
  const stream = keys.jobs(BENCH_KIND, BENCH_VERSION);
  const database = openDatabase({ url: cfg.pgUrl, poolSize: 8 });
  const redis = new Redis(cfg.redisUrl);
  redis.on('error', (error) => console.error(`sluice-streams producer: ${error.message}`));
  // As the gateway's dispatcher: the group exists (at 0) before the first entry arrives.
  await redis.xgroup('CREATE', stream, keys.group, '0', 'MKSTREAM').catch((error: Error) => {
    if (!/BUSYGROUP/.test(error.message)) throw error;
  });
  await database.db.selectFrom('jobs').select('id').limit(1).execute();
  let last = { ms: 0, seq: 0 };
  let owed: string[] = [];
  let deleting = Promise.resolve();
  const timer = setInterval(() => {
    if (owed.length === 0) return;
    const ids = owed;
    owed = [];
    const before = isoNow();
    deleting = deleting
      .then(() => database.transaction((tx) => deleteDispatchedOutbox(tx, ids, before)))
      .catch((error: unknown) => console.error('sluice-streams producer: outbox delete', error));
  }, OUTBOX_DELETE_MS);

  return {
    async add(job) {
      const id = formatJobId(BENCH_VERSION);
      const input = { i: job.i, t: job.t };
      await database.transaction(async (tx) => {
        await insertJob(tx, {
          id,
          tenantId: BENCH_TENANT,
          kind: BENCH_KIND,
          version: BENCH_VERSION,
          input,
          inputHash: createHash('sha256').update(JSON.stringify(input)).digest('hex'),
          maxAttempts: benchJob.maxAttempts,
        });
        await addToOutbox(tx, [id]);
        const r = await transitionJob(tx, { id, event: 'dispatch' });
        if (!r.ok) throw new Error(`dispatch transition refused for ${id}`);
      });
      const fields = encodePointer({
        jobId: id,
        kind: BENCH_KIND,
        version: BENCH_VERSION,
        tenantId: BENCH_TENANT,
      });
      // The stamp and the command leave in one synchronous step, so ids follow stamp order.
      const entry = stampedEntryId(last, monoMs());
      last = entry;
      await redis.xadd(stream, entry.id, ...fields);
      owed.push(id);
    },
    async close() {
      clearInterval(timer);
      await deleting;
      await database.close();
      await redis.quit();
    },
  };
};
