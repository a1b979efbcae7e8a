// Row 3's producer for Sluice NATS: what the gateway's accept + dispatch path does without HTTP,
// group-committed as the gateway's accept batcher does (as the Streams producer): the adds that
// arrive while a transaction is in flight share the next one, which writes them with
// `insertAcceptedJobs` and their outbox rows; after the commit the gateway's own NATS dispatcher
// publishes their pointers (every publish awaited for the stream's ack); outbox rows are deleted
// every 100 ms (`deleteDispatchedOutbox`). The harness stamps `job.t` before `add`, i.e. before
// the database write (accept → start); the consumer measures dispatch → start from the time the
// server stored the message.
import { createHash } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { formatJobId } from '@sluice/contracts';
import {
  addToOutbox,
  deleteDispatchedOutbox,
  insertAcceptedJobs,
  isoNow,
  openDatabase,
  type AcceptedJob,
} from '@sluice/storage';
import { createNatsDispatcher, createNatsNames } from '@sluice/runtime-nats';
import type { CreateProducer, JobPayload } from '../adapter.js';
import { BENCH_KIND, BENCH_TENANT, BENCH_VERSION, benchJob } from '../sluice/bench-job.js';
import { parseNatsChildConfig } from '../sluice/nats-config.js';
import { closeDatabase } from '../sluice/close-database.js';

const OUTBOX_DELETE_MS = 100;

export const createProducer: CreateProducer = async (init) => {
  const cfg = parseNatsChildConfig(init.config);
  const names = createNatsNames(cfg.prefix);
  const database = openDatabase({ url: cfg.pgUrl, poolSize: 8, notifyEvents: false });
  const nc = await connect({ servers: cfg.natsUrl.replace(/^nats:\/\//, ''), name: 'producer' });
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const dispatcher = createNatsDispatcher({ names, client: async () => ({ js, jsm }) });
  await database.db.selectFrom('jobs').select('id').limit(1).execute();
  let owed: string[] = [];
  let deleting = Promise.resolve();
  const timer = setInterval(() => {
    if (owed.length === 0) return;
    const ids = owed;
    owed = [];
    const before = isoNow();
    deleting = deleting
      .then(() => database.transaction((tx) => deleteDispatchedOutbox(tx, ids, before)))
      .catch((error: unknown) => console.error('sluice-nats producer: outbox delete', error));
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
    await dispatcher.dispatch(
      ids.map((jobId) => ({
        jobId,
        kind: BENCH_KIND,
        version: BENCH_VERSION,
        tenantId: BENCH_TENANT,
      })),
    );
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
      await nc.close();
    },
  };
};
