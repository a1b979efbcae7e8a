// The run's job store when a Node gateway dispatched the job (REST dispatcher): the job row, its
// ledger and its writes live in that gateway's database, reached over `fetch` (this runs in
// workerd: no Node built-in). Attempt writes go through the state callback (state-reporter.ts);
// reads, ledger rows and a dead letter through the store route (`wire/runtime-store.ts`),
// both signed with the shared secret. The gateway applies each with the fenced repository
// function a Node runtime would call: 409 means the attempt no longer holds the job, and nothing
// was written. No answer or a 5xx is UNAVAILABLE (the step is retried); other refusals are final.

import { NonRetriableError, SluiceError } from '@sluice/contracts';
import {
  RuntimeStoreAnswer,
  RUNTIME_STORE_PATH,
  signStateReport,
  type RuntimeStoreRequest,
  type SameKeys,
  type StateReport,
} from '../wire/index.js';
import type { AttemptWrite, JobSnapshot, LedgerRow } from '@sluice/storage/d1';
import type { CallLedger } from '@sluice/worker/platform';
import type { RunJobStore } from './job-store.js';
import { createStateReporter, type StateReporterOptions } from './state-reporter.js';

// The report's schema is strict: a field an attempt write gains and the report lacks would make
// the gateway refuse every write of every run (400). The two must name the same fields (minus the
// two a run never sends over the callback).
const reportMatchesWrite: SameKeys<
  Omit<AttemptWrite, 'runAfter' | 'outboxDueAt'>,
  StateReport
> = true;
void reportMatchesWrite;

export interface GatewayJobStoreOptions extends StateReporterOptions {
  /** Path of the gateway's store route (default `/v1/runtime/store`). */
  storePath?: string | undefined;
}

type Op = RuntimeStoreRequest['op'];

export function gatewayJobStore(opts: GatewayJobStoreOptions): RunJobStore {
  const reporter = createStateReporter(opts);
  const url = new URL(opts.storePath ?? RUNTIME_STORE_PATH, opts.gatewayUrl).toString();
  const now = opts.now ?? Date.now;

  /** One signed request; `undefined` when the gateway fenced it (409). */
  async function call<O extends Op>(
    req: Extract<RuntimeStoreRequest, { op: O }>,
  ): Promise<ReturnType<(typeof RuntimeStoreAnswer)[O]['parse']> | undefined> {
    const body = JSON.stringify(req);
    const headers = await signStateReport(opts.secret, body, now());
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body,
      });
    } catch (error) {
      throw new SluiceError('UNAVAILABLE', `job store ${url} failed`, { cause: error });
    }
    const text = await res.text();
    if (res.status === 409) return undefined;
    if (!res.ok) {
      const message = `job store (${req.op}) answered ${res.status}: ${text.slice(0, 200)}`;
      // A 5xx may pass (retry the step); a refusal of this request will not.
      if (res.status >= 500) throw new SluiceError('UNAVAILABLE', message);
      throw new NonRetriableError(message);
    }
    const schema = RuntimeStoreAnswer[req.op] as { parse(v: unknown): unknown };
    return schema.parse(JSON.parse(text)) as ReturnType<(typeof RuntimeStoreAnswer)[O]['parse']>;
  }

  const ledger: CallLedger = {
    async callsForUnit(jobId, unitKey, callName) {
      const tenantId = tenantOf(jobId);
      const r = await call({ op: 'calls', jobId, tenantId, unitKey, callName });
      return (r?.calls ?? []) as LedgerRow[];
    },
    async recordIntent(intent) {
      const tenantId = tenantOf(intent.jobId);
      const r = await call({ op: 'call_intent', tenantId, ...intent });
      return r?.row as LedgerRow | undefined;
    },
    async recordOutcome(row, result) {
      await call({
        op: 'call_outcome',
        jobId: row.jobId,
        tenantId: row.tenantId,
        unitKey: row.unitKey,
        rowId: row.id,
        ...result,
      });
    },
    async recordExternalId(row, externalId) {
      await call({
        op: 'external_id',
        jobId: row.jobId,
        tenantId: row.tenantId,
        unitKey: row.unitKey,
        rowId: row.id,
        externalId,
      });
    },
  };
  // The ledger's calls name a job, not its tenant: the store learns it from the run's first read.
  const tenants = new Map<string, string>();
  function tenantOf(jobId: string): string {
    const tenantId = tenants.get(jobId);
    if (!tenantId)
      throw new SluiceError('INTERNAL', `${jobId}: ledger used before the job was read`);
    return tenantId;
  }

  return {
    ledger,
    async snapshot(pointer) {
      tenants.set(pointer.jobId, pointer.tenantId);
      const r = await call({ op: 'snapshot', jobId: pointer.jobId, tenantId: pointer.tenantId });
      return (r?.snapshot ?? undefined) as JobSnapshot | undefined;
    },
    async write(w) {
      if (w.runAfter !== undefined || w.outboxDueAt !== undefined) {
        // The callback carries neither (a Workflow run never delays its own retry this way).
        throw new SluiceError('INTERNAL', `${w.id}: a delayed retry cannot go over the callback`);
      }
      const { runAfter: _r, outboxDueAt: _o, ...report } = w;
      return reporter.report({ ...report, events: [...w.events], units: w.units && [...w.units] });
    },
    async deadLetter(pointer, epoch, reason, detail) {
      const r = await call({
        op: 'dead_letter',
        jobId: pointer.jobId,
        tenantId: pointer.tenantId,
        epoch,
        reason,
        detail,
      });
      return r?.moved ?? false;
    },
  };
}

/**
 * A `store` for `createSluiceWorkflow` that reads the gateway's URL and the shared secret from
 * the Worker's env (vars/secrets; defaults SLUICE_GATEWAY_URL and SLUICE_CALLBACK_SECRET).
 */
export function gatewayStoreFromEnv(
  names: { url?: string; secret?: string; storePath?: string } = {},
): (env: Record<string, unknown>) => RunJobStore {
  const urlName = names.url ?? 'SLUICE_GATEWAY_URL';
  const secretName = names.secret ?? 'SLUICE_CALLBACK_SECRET';
  return (env) => {
    const gatewayUrl = env[urlName];
    const secret = env[secretName];
    if (typeof gatewayUrl !== 'string' || typeof secret !== 'string') {
      throw new SluiceError('INVALID_CONFIG', `the Worker needs ${urlName} and ${secretName}`);
    }
    return gatewayJobStore({ gatewayUrl, secret, storePath: names.storePath });
  };
}
