// In-memory indexes over the durable ledger. Everything here is rebuilt from the ledger file on
// start, so idempotent replays and async job polls keep working after a provider restart.
import type { ServerResponse } from 'node:http';
import { createFaultBook, type FaultBook } from './faults.js';
import type { Ledger } from './ledger.js';
import type { LedgerRecord } from './types.js';

export interface ProviderState {
  readonly ledger: Ledger;
  readonly faults: FaultBook;
  readonly asyncDelayMs: number;
  /** Appends durably, then indexes. */
  record(partial: Omit<LedgerRecord, 'seq' | 'at'>): LedgerRecord;
  /** The billed safe-endpoint call that first used this idempotency key. */
  firstCallForKey(key: string): LedgerRecord | undefined;
  asyncJob(externalJobId: string): LedgerRecord | undefined;
  /** Clears the ledger, the indexes and the fault rules. */
  reset(): void;
  /** Waits `ms` unless the server closes first (then resolves false). */
  sleep(ms: number): Promise<boolean>;
  /** Keeps a hung response so close() can destroy it. */
  holdForever(res: ServerResponse): void;
  /** Cancels sleeps and destroys hung responses. */
  shutdown(): void;
}

export function createProviderState(ledger: Ledger, asyncDelayMs: number): ProviderState {
  const faults = createFaultBook();
  const byKey = new Map<string, LedgerRecord>();
  const asyncJobs = new Map<string, LedgerRecord>();
  const sleeps = new Map<NodeJS.Timeout, (done: boolean) => void>();
  const hung = new Set<ServerResponse>();
  let closed = false;

  function index(r: LedgerRecord): void {
    if (r.endpoint === 'safe' && r.billed && r.requestId !== null && !byKey.has(r.requestId)) {
      byKey.set(r.requestId, r);
    }
    if (r.endpoint === 'async' && r.externalJobId !== undefined) asyncJobs.set(r.externalJobId, r);
  }
  for (const r of ledger.records()) index(r);

  return {
    ledger,
    faults,
    asyncDelayMs,
    record(partial) {
      const r = ledger.append(partial);
      index(r);
      return r;
    },
    firstCallForKey: (key) => byKey.get(key),
    asyncJob: (id) => asyncJobs.get(id),
    reset() {
      ledger.reset();
      byKey.clear();
      asyncJobs.clear();
      faults.clear();
    },
    sleep(ms) {
      if (closed) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          sleeps.delete(timer);
          resolve(true);
        }, ms);
        sleeps.set(timer, resolve);
      });
    },
    holdForever(res) {
      hung.add(res);
      res.once('close', () => hung.delete(res));
    },
    shutdown() {
      closed = true;
      for (const [timer, resolve] of sleeps) {
        clearTimeout(timer);
        resolve(false);
      }
      sleeps.clear();
      for (const res of hung) res.destroy();
      hung.clear();
    },
  };
}
