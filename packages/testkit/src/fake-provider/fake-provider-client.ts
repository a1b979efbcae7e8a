// Typed access to a running fake provider's admin API, shared by the spawned and the in-process
// variants so the same assertions work against both.
import { filterLedger, summarizeLedger } from './ledger.js';
import type { FaultRule, LedgerFilter, LedgerRecord, LedgerSummaryRow } from './types.js';

export interface FakeProviderClient {
  readonly url: string;
  readonly port: number;
  /** Replaces the armed fault rules (first match wins, `times` defaults to 1). */
  setFaults(rules: readonly FaultRule[]): Promise<void>;
  clearFaults(): Promise<void>;
  /** Rules still armed, with their remaining `times`. */
  faults(): Promise<FaultRule[]>;
  ledger(filter?: LedgerFilter): Promise<LedgerRecord[]>;
  summary(filter?: LedgerFilter): Promise<LedgerSummaryRow[]>;
  /** Billed records matching the filter. */
  billedCount(filter?: LedgerFilter): Promise<number>;
  /** Clears the ledger, idempotency memory, async jobs and fault rules. */
  reset(): Promise<void>;
}

export class FakeProviderAdminError extends Error {
  override readonly name = 'FakeProviderAdminError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export function createFakeProviderClient(url: string): FakeProviderClient {
  const base = url.replace(/\/$/, '');
  async function call(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (!res.ok)
      throw new FakeProviderAdminError(`${method} ${path} -> ${res.status}: ${text}`, res.status);
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  }
  const ledger = async (filter?: LedgerFilter): Promise<LedgerRecord[]> =>
    filterLedger((await call('GET', '/admin/ledger')) as LedgerRecord[], filter);

  return {
    url: base,
    port: Number(new URL(base).port),
    async setFaults(rules) {
      await call('POST', '/admin/faults', rules);
    },
    async clearFaults() {
      await call('DELETE', '/admin/faults');
    },
    faults: async () => (await call('GET', '/admin/faults')) as FaultRule[],
    ledger,
    // Summarised locally from the filtered ledger, so a filter narrows the rows it covers.
    summary: async (filter) =>
      filter
        ? summarizeLedger(await ledger(filter))
        : ((await call('GET', '/admin/summary')) as LedgerSummaryRow[]),
    billedCount: async (filter) => (await ledger(filter)).filter((r) => r.billed).length,
    async reset() {
      await call('POST', '/admin/reset');
    },
  };
}
