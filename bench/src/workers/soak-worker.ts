// One worker process of the scale run (tools/soak-scale.ts): `createWorker` + the Valkey Streams
// runtime on the run's private redis-server, state in its private PostgreSQL (no NOTIFY, as the
// CLI opens a Streams worker's database), the `bench.noop` job with a handler that sleeps 1–5 ms.
// Forked with IPC; config in SOAK_WORKER (JSON). Once a second it sends the parent what it saw
// since the last message: the ids it settled as succeeded (the audit's "settled" side), the ids
// settled any other way, how many handler starts it ran, and two latency samples per start:
//   dispatch→start  now − the ms part of the stream entry id (Redis stamps `*` ids with its clock
//                   when the gateway's dispatcher or fair feeder XADDs the pointer);
//   submit→start    now − the `t` the producer put in the input just before its HTTP request.
// Both clocks are this machine's wall clock, so the samples compare across processes.
import { openDatabase } from '@sluice/storage';
import { createWorker } from '@sluice/worker';
import { createStreamsRuntime, type StreamsConsumer } from '@sluice/runtime-valkey-streams';
import { BENCH_KIND, BENCH_VERSION, benchHandler, benchJobs } from '../sluice/bench-job.js';
import { closeDatabase } from '../sluice/close-database.js';

interface SoakWorkerConfig {
  redisUrl: string;
  pgUrl: string;
  poolSize: number;
  concurrency: number;
  index: number;
  handlerMinMs: number;
  handlerMaxMs: number;
}

const cfg = JSON.parse(process.env.SOAK_WORKER ?? '') as SoakWorkerConfig;
const database = openDatabase({ url: cfg.pgUrl, poolSize: cfg.poolSize, notifyEvents: false });

/** jobId → the entry's dispatch time (ms), noted by `read`, dropped at the handler's start. */
const entryMs = new Map<string, number>();
let settled: string[] = [];
let other: string[] = [];
let starts = 0;
let dispatchToStart: number[] = [];
let submitToStart: number[] = [];

function observe(consumer: StreamsConsumer): StreamsConsumer {
  return {
    ...consumer,
    async read(max, signal) {
      const deliveries = await consumer.read(max, signal);
      for (const d of deliveries) {
        const ms = Number(d.entryId.slice(0, d.entryId.indexOf('-')));
        if (d.pointer && Number.isFinite(ms)) entryMs.set(d.pointer.jobId, ms);
      }
      return deliveries;
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const span = cfg.handlerMaxMs - cfg.handlerMinMs;

const worker = createWorker({
  jobs: benchJobs,
  handlers: {
    [BENCH_KIND]: {
      [BENCH_VERSION]: benchHandler(async (job, jobId) => {
        const now = Date.now();
        starts++;
        const at = entryMs.get(jobId);
        entryMs.delete(jobId);
        if (at !== undefined) dispatchToStart.push(now - at);
        if (job.t > 0) submitToStart.push(now - job.t);
        await sleep(cfg.handlerMinMs + Math.random() * span);
      }),
    },
  },
  runtime: (ctx) => observe(createStreamsRuntime({ redisUrl: cfg.redisUrl, ...ctx })),
  database,
  concurrency: cfg.concurrency,
  // Stable per process, as SLUICE_WORKER_ID gives a deployed worker (its consumer name).
  workerId: `soak-${cfg.index}`,
  onSettled(jobs) {
    for (const j of jobs) (j.outcome === 'succeed' ? settled : other).push(j.jobId);
  },
});

function report(): void {
  if (!process.connected) return;
  process.send?.({
    type: 'progress',
    settled,
    other,
    starts,
    dispatchToStart,
    submitToStart,
  });
  settled = [];
  other = [];
  starts = 0;
  dispatchToStart = [];
  submitToStart = [];
}

const timer = setInterval(report, 1000);
let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  clearInterval(timer);
  await worker.stop({ deadlineMs: 5_000 });
  report();
  await closeDatabase(database);
  process.disconnect?.();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
// The parent went away (crash, Ctrl-C): no orphaned worker keeps claiming.
process.on('disconnect', () => void stop());

await worker.start();
process.send?.({ type: 'ready', pid: process.pid });
