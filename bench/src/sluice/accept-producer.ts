// Row 3's producers for the broker runtimes (Streams, NATS) share what the gateway's accept path
// does without HTTP, group-committed as the gateway's accept batcher does: the adds that arrive
// while a transaction is in flight share the next one, which writes them with
// `insertAcceptedJobs` and their outbox rows; after the commit the runtime's `dispatch` hands
// their pointers to the transport; outbox rows are deleted every 100 ms
// (`deleteDispatchedOutbox`), as the gateway's dispatch batcher does. Only `dispatch` differs.
import { createHash } from 'node:crypto';
import { formatJobId } from '@sluice/contracts';
import {
  addToOutbox,
  deleteDispatchedOutbox,
  insertAcceptedJobs,
  isoNow,
  type AcceptedJob,
  type SluiceDatabase,
} from '@sluice/storage';
import type { JobPayload, Producer } from '../adapter.js';
import { BENCH_KIND, BENCH_TENANT, BENCH_VERSION, benchJob } from './bench-job.js';
import { closeDatabase } from './close-database.js';

const OUTBOX_DELETE_MS = 100;

export interface AcceptProducerOptions {
  database: SluiceDatabase;
  /** For log lines (`sluice-nats producer`). */
  name: string;
  /**
   * Hands the committed jobs' pointers to the transport (`accepted`: the jobs as written and
   * their accept time, for a transport whose pointers carry the row).
   */
  dispatch(
    ids: readonly string[],
    accepted: { jobs: readonly AcceptedJob[]; at: string },
  ): Promise<void>;
  /** Closes the transport's connection (after the database). */
  closeTransport(): Promise<void>;
}

interface Waiting {
  job: AcceptedJob;
  done: (error?: unknown) => void;
}

export function createAcceptProducer(opts: AcceptProducerOptions): Producer {
  const { database } = opts;
  let owed: string[] = [];
  let deleting = Promise.resolve();
  const timer = setInterval(() => {
    if (owed.length === 0) return;
    const ids = owed;
    owed = [];
    const before = isoNow();
    deleting = deleting
      .then(() => database.transaction((tx) => deleteDispatchedOutbox(tx, ids, before)))
      .catch((error: unknown) => console.error(`${opts.name}: outbox delete`, error));
  }, OUTBOX_DELETE_MS);

  let queue: Waiting[] = [];
  let flushing: Promise<void> | undefined;

  async function write(batch: readonly Waiting[]): Promise<void> {
    const ids = batch.map((w) => w.job.id);
    const jobs = batch.map((w) => w.job);
    const at = await database.transaction(async (tx) => {
      const written = await insertAcceptedJobs(tx, jobs);
      if (written.inserted.size !== batch.length) throw new Error('accepted jobs not all written');
      await addToOutbox(tx, ids);
      return written.events[0]?.event.at ?? isoNow();
    });
    await opts.dispatch(ids, { jobs, at });
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
      await opts.closeTransport();
    },
  };
}
