// Figures read from the database when scraped, as prom-client collect() callbacks: every gateway
// replica shows the same truth. Jobs by state, the embedded queue, and the retry-safety figures:
// provider calls by class and outcome (the ledger), jobs waiting for a person, and fail-closed
// refusals (calls refused before sending: each one an alert). One read per scrape, shared by
// the gauges that show it. Queued jobs held by a start or provider limit, by limit.

import {
  countCalls,
  countJobsByState,
  countWaitingJobs,
  queueStats,
  type Db,
} from '@sluice/storage';
import { Gauge, type Registry } from 'prom-client';
import { sharedRead } from './metrics.js';

async function readRetrySafety(db: Db) {
  const [calls, review] = await Promise.all([
    countCalls(db),
    db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('state', '=', 'needs_review')
      .executeTakeFirst(),
  ]);
  return { calls, inReview: Number(review?.n ?? 0) };
}

export function registerDatabaseMetrics(registry: Registry, db: Db): void {
  const registers = [registry];
  const byState = sharedRead(() => countJobsByState(db));
  const queue = sharedRead(() => queueStats(db));
  const retrySafety = sharedRead(() => readRetrySafety(db));

  new Gauge({
    name: 'sluice_jobs',
    help: 'Jobs by state.',
    labelNames: ['state'],
    registers,
    async collect() {
      for (const [state, n] of Object.entries(await byState())) this.set({ state }, n);
    },
  });
  new Gauge({
    name: 'sluice_queue_depth',
    help: 'Rows in the embedded queue.',
    registers,
    async collect() {
      this.set((await queue()).depth);
    },
  });
  new Gauge({
    name: 'sluice_queue_leased',
    help: 'Embedded queue rows under a live lease.',
    registers,
    async collect() {
      this.set((await queue()).leased);
    },
  });
  new Gauge({
    name: 'sluice_queue_oldest_ready_age_seconds',
    help: 'Age of the oldest ready row.',
    registers,
    async collect() {
      this.set((await queue()).oldestReadyAgeMs / 1000);
    },
  });
  new Gauge({
    name: 'sluice_provider_calls',
    help: 'Provider-call ledger rows by declaration class and outcome.',
    labelNames: ['class', 'outcome'],
    registers,
    async collect() {
      const { calls } = await retrySafety();
      this.reset();
      for (const c of calls) this.set({ class: c.callClass, outcome: c.outcome }, c.n);
    },
  });
  new Gauge({
    name: 'sluice_jobs_waiting',
    help: 'Queued jobs a start or provider limit holds, by limit (scope:kind or provider:name).',
    labelNames: ['limit'],
    registers,
    async collect() {
      const waiting = await countWaitingJobs(db);
      this.reset();
      for (const [limit, n] of waiting) this.set({ limit }, n);
    },
  });
  new Gauge({
    name: 'sluice_jobs_in_review',
    help: 'Jobs parked in needs_review, waiting for a person.',
    registers,
    async collect() {
      this.set((await retrySafety()).inReview);
    },
  });
  new Gauge({
    name: 'sluice_provider_calls_refused',
    help: 'Provider calls refused before sending (fail-closed).',
    registers,
    async collect() {
      const { calls } = await retrySafety();
      this.set(calls.reduce((n, c) => (c.outcome === 'refused' ? n + c.n : n), 0));
    },
  });
}
