// Row 3's producer for Sluice Streams: what the gateway's accept + dispatch path does without
// HTTP (row 6 measures that part), group-committed as the gateway's accept batcher does: the adds
// that arrive while a transaction is in flight share the next one, which writes them with
// `insertAcceptedJobs` (queued, events 1–2, multi-row) and their outbox rows; after the commit,
// one pipeline XADDs their pointers (createStreamKeys / encodePointer), each entry's id carrying
// its dispatch stamp (`stampedEntryId`, taken as the pipeline is built); outbox rows are deleted
// every 100 ms (`deleteDispatchedOutbox`), as the gateway's dispatch batcher does. The harness
// stamps `job.t` before `add`, i.e. before the database write (accept → start).
import { createHash } from 'node:crypto';
import { Redis } from 'iovalkey';
import { encodePointer, formatJobId } from '@sluice/contracts';
import {
  addToOutbox,
  deleteDispatchedOutbox,
  insertAcceptedJobs,
  isoNow,
  openDatabase,
  type AcceptedJob,
} from '@sluice/storage';
import type { CreateProducer, JobPayload } from '../adapter.js';
import { monoMs } from '../harness/clock.js';
import { BENCH_KIND, BENCH_TENANT, BENCH_VERSION, benchJob } from '../sluice/bench-job.js';
import { parseStreamsChildConfig, stampedEntryId } from '../sluice/streams-config.js';
import { closeDatabase } from '../sluice/close-database.js';
import { createStreamKeys } from '@sluice/runtime-valkey-streams';

const OUTBOX_DELETE_MS = 100;

export const createProducer: CreateProducer = async (init) => {
  const cfg = parseStreamsChildConfig(init.config);
  const keys = createStreamKeys();
  const stream = keys.jobs(BENCH_KIND, BENCH_VERSION);
  // The gateway of a Streams deployment opens its database like this too (the CLI's
  // resources.ts): NOTIFY off, the events stream is the fan-out.
  const database = openDatabase({ url: cfg.pgUrl, poolSize: 8, notifyEvents: false });
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

  interface Waiting {
    job: AcceptedJob;
    done: (error?: unknown) => void;
  }
  let queue: Waiting[] = [];
  let flushing: Promise<void> | undefined;

  async function write(batch: readonly Waiting[]): Promise<void> {
    const ids = batch.map((w) => w.job.id);
    await database.transaction(async (tx) => {
      const written = await insertAcceptedJobs(
        tx,
        batch.map((w) => w.job),
      );
      if (written.inserted.size !== batch.length) throw new Error('accepted jobs not all written');
      await addToOutbox(tx, ids);
    });
    const pipeline = redis.pipeline();
    for (const jobId of ids) {
      const fields = encodePointer({
        jobId,
        kind: BENCH_KIND,
        version: BENCH_VERSION,
        tenantId: BENCH_TENANT,
      });
      const entry = stampedEntryId(last, monoMs());
      last = entry;
      pipeline.xadd(stream, entry.id, ...fields);
    }
    const failed = (await pipeline.exec())?.find(([error]) => error);
    if (failed) throw failed[0] as Error;
    owed.push(...ids);
  }

  function flush(): void {
    if (flushing || queue.length === 0) return;
    const batch = queue;
    queue = [];
    flushing = write(batch).then(
      () => batch.forEach((w) => w.done()),
      (error: unknown) => batch.forEach((w) => w.done(error)),
    );
    void flushing.finally(() => {
      flushing = undefined;
      flush();
    });
  }

  const accepted = (job: JobPayload): AcceptedJob => {
    const input = { i: job.i, t: job.t };
    return {
      id: formatJobId(BENCH_VERSION),
      tenantId: BENCH_TENANT,
      kind: BENCH_KIND,
      version: BENCH_VERSION,
      input,
      inputHash: createHash('sha256').update(JSON.stringify(input)).digest('hex'),
      maxAttempts: benchJob.maxAttempts,
      outcome: { to: 'queued' },
    };
  };

  return {
    add(job) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ job: accepted(job), done: (e) => (e ? reject(e as Error) : resolve()) });
        flush();
      });
    },
    async close() {
      await flushing;
      clearInterval(timer);
      await deleting;
      await closeDatabase(database);
      await redis.quit();
    },
  };
};
