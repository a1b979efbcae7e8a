// The worker's counters and gauges, and their Prometheus text form for `/metrics`.

export interface WorkerCounters {
  /** Deliveries read from the runtime. */
  claimed: number;
  /** Attempts started (`start` or `reclaim`). */
  started: number;
  reclaimed: number;
  succeeded: number;
  failed: number;
  retried: number;
  deadLettered: number;
  stale: number;
  reviewed: number;
  /** Running attempts stopped because their job was cancelled. */
  cancelled: number;
  /** Deliveries acknowledged without running (finished, gone, duplicate). */
  skipped: number;
  renewals: number;
  renewalFailures: number;
  lostLeases: number;
  readFailures: number;
  initFailures: number;
  eventsWritten: number;
  eventWriteFailures: number;
  terminalBatches: number;
  terminalWriteFailures: number;
  sweptUnroutable: number;
  /** Provider requests attempted through the guard (each with its ledger row written first). */
  providerCalls: number;
  /** Provider answers reused from the ledger instead of paying again. */
  providerAnswersReused: number;
  /** Provider calls refused before sending (fail-closed declarations): each one is an alert. */
  failClosedRefusals: number;
  /** Steps answered from a checkpoint instead of running again. */
  checkpointsReused: number;
  /** Assets this worker published (staging blob moved to its final key, row inserted). */
  assetsPublished: number;
  /** Asset writes answered with an asset an earlier attempt had published (never rewritten). */
  assetsReused: number;
  /** Staging blobs of dead attempts deleted by the sweeper. */
  stagingSwept: number;
}

export interface WorkerGauges {
  /** Attempts whose handler is executing. */
  running: number;
  /** Deliveries this worker holds (executing or waiting for their terminal write). */
  held: number;
  consecutiveReadFailures: number;
  ready: boolean;
}

export type WorkerMetrics = WorkerCounters & WorkerGauges;

export function createCounters(): WorkerCounters {
  return {
    claimed: 0,
    started: 0,
    reclaimed: 0,
    succeeded: 0,
    failed: 0,
    retried: 0,
    deadLettered: 0,
    stale: 0,
    reviewed: 0,
    cancelled: 0,
    skipped: 0,
    renewals: 0,
    renewalFailures: 0,
    lostLeases: 0,
    readFailures: 0,
    initFailures: 0,
    eventsWritten: 0,
    eventWriteFailures: 0,
    terminalBatches: 0,
    terminalWriteFailures: 0,
    sweptUnroutable: 0,
    providerCalls: 0,
    providerAnswersReused: 0,
    failClosedRefusals: 0,
    checkpointsReused: 0,
    assetsPublished: 0,
    assetsReused: 0,
    stagingSwept: 0,
  };
}

const HELP: Record<keyof WorkerMetrics, [string, 'counter' | 'gauge']> = {
  claimed: ['Deliveries read from the runtime', 'counter'],
  started: ['Attempts started (start or reclaim)', 'counter'],
  reclaimed: ['Attempts that took over a job whose lease expired', 'counter'],
  succeeded: ['Jobs this worker moved to succeeded', 'counter'],
  failed: ['Jobs this worker moved to failed', 'counter'],
  retried: ['Attempts that ended in a retry', 'counter'],
  deadLettered: ['Jobs this worker dead-lettered', 'counter'],
  stale: ['Jobs this worker marked stale', 'counter'],
  reviewed: ['Jobs this worker parked in needs_review', 'counter'],
  cancelled: ['Running attempts stopped by a cancel', 'counter'],
  skipped: ['Deliveries acknowledged without running', 'counter'],
  renewals: ['Lease renewals that kept a claim', 'counter'],
  renewalFailures: ['Renewal rounds that failed', 'counter'],
  lostLeases: ['Attempts that lost their lease and were aborted', 'counter'],
  readFailures: ['Failed reads (transport or batch load)', 'counter'],
  initFailures: ['Failed runtime initialisations', 'counter'],
  eventsWritten: ['Progress and unit events stored', 'counter'],
  eventWriteFailures: ['Failed event flushes (retried)', 'counter'],
  terminalBatches: ['Terminal transactions committed', 'counter'],
  terminalWriteFailures: ['Failed terminal transactions', 'counter'],
  sweptUnroutable: ['Queued jobs dead-lettered by the unroutable-version sweep', 'counter'],
  providerCalls: ['Provider requests attempted through the guard (ledger row first)', 'counter'],
  providerAnswersReused: ['Provider answers reused from the ledger (not paid again)', 'counter'],
  failClosedRefusals: ['Provider calls refused before sending (fail-closed): alerts', 'counter'],
  checkpointsReused: ['Steps answered from a checkpoint instead of running', 'counter'],
  assetsPublished: ['Assets published (staging blob moved, row inserted)', 'counter'],
  assetsReused: ['Asset writes that reused an already published asset', 'counter'],
  stagingSwept: ['Staging blobs of dead attempts deleted by the sweeper', 'counter'],
  running: ['Attempts executing now', 'gauge'],
  held: ['Deliveries held (executing or finishing)', 'gauge'],
  consecutiveReadFailures: ['Read failures in a row', 'gauge'],
  ready: ['1 when the worker is ready', 'gauge'],
};

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export function renderPrometheus(metrics: WorkerMetrics, prefix = 'sluice_worker'): string {
  const lines: string[] = [];
  for (const key of Object.keys(HELP) as (keyof WorkerMetrics)[]) {
    const [help, type] = HELP[key];
    const name = `${prefix}_${snake(key)}${type === 'counter' ? '_total' : ''}`;
    const raw = metrics[key];
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name} ${Number(raw)}`);
  }
  return `${lines.join('\n')}\n`;
}
