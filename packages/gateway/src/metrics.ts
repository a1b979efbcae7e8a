// Gateway counters and the Prometheus text exposition. Database figures (jobs by state, queue
// depth and age) are read when scraped; counters live in memory per process.

import { countJobsByState, queueStats, type Db } from '@sluice/storage';
import { renderRetrySafetyMetrics } from './retry-safety-metrics.js';

export interface GatewayMetrics {
  submits: number;
  duplicates: number;
  unroutable: number;
  uploads: number;
  uploadBytes: number;
  /** Rejected calls by tRPC (or HTTP) error code. */
  rejects: Map<string, number>;
  reject(code: string): void;
}

export function createMetrics(): GatewayMetrics {
  const rejects = new Map<string, number>();
  return {
    submits: 0,
    duplicates: 0,
    unroutable: 0,
    uploads: 0,
    uploadBytes: 0,
    rejects,
    reject(code) {
      rejects.set(code, (rejects.get(code) ?? 0) + 1);
    },
  };
}

function line(out: string[], name: string, type: 'gauge' | 'counter', help: string): void {
  out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
}

export async function renderMetrics(
  db: Db,
  metrics: GatewayMetrics,
  activeSubscriptions: number,
): Promise<string> {
  const [byState, queue, retrySafety] = await Promise.all([
    countJobsByState(db),
    queueStats(db),
    renderRetrySafetyMetrics(db),
  ]);
  const out: string[] = [];
  line(out, 'sluice_jobs', 'gauge', 'Jobs by state.');
  for (const [state, n] of Object.entries(byState)) out.push(`sluice_jobs{state="${state}"} ${n}`);
  line(out, 'sluice_queue_depth', 'gauge', 'Rows in the embedded queue.');
  out.push(`sluice_queue_depth ${queue.depth}`);
  line(out, 'sluice_queue_leased', 'gauge', 'Embedded queue rows under a live lease.');
  out.push(`sluice_queue_leased ${queue.leased}`);
  line(out, 'sluice_queue_oldest_ready_age_seconds', 'gauge', 'Age of the oldest ready row.');
  out.push(`sluice_queue_oldest_ready_age_seconds ${queue.oldestReadyAgeMs / 1000}`);
  line(out, 'sluice_gateway_submits_total', 'counter', 'Accepted submits (new jobs).');
  out.push(`sluice_gateway_submits_total ${metrics.submits}`);
  line(out, 'sluice_gateway_duplicates_total', 'counter', 'Submits answered with an existing job.');
  out.push(`sluice_gateway_duplicates_total ${metrics.duplicates}`);
  line(out, 'sluice_gateway_unroutable_total', 'counter', 'Jobs dead-lettered at accept.');
  out.push(`sluice_gateway_unroutable_total ${metrics.unroutable}`);
  line(out, 'sluice_gateway_rejects_total', 'counter', 'Rejected calls by error code.');
  for (const [code, n] of [...metrics.rejects].sort()) {
    out.push(`sluice_gateway_rejects_total{code="${code}"} ${n}`);
  }
  line(out, 'sluice_gateway_uploads_total', 'counter', 'Stored uploads.');
  out.push(`sluice_gateway_uploads_total ${metrics.uploads}`);
  line(out, 'sluice_gateway_upload_bytes_total', 'counter', 'Bytes of stored uploads.');
  out.push(`sluice_gateway_upload_bytes_total ${metrics.uploadBytes}`);
  line(out, 'sluice_gateway_active_subscriptions', 'gauge', 'Open event subscriptions.');
  out.push(`sluice_gateway_active_subscriptions ${activeSubscriptions}`);
  out.push(...retrySafety);
  return `${out.join('\n')}\n`;
}
