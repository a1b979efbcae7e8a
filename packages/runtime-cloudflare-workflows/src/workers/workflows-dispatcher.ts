// The Workers gateway's Workflows dispatcher: Workflow bindings, one per job version (`v1` →
// `env.WF_V1`). Each job is one instance whose id is the job id, so dispatching a job twice names
// the same instance: "already exists" counts as dispatched (production throws on `create` and
// skips in `createBatch`; the local engine accepts silently). Bursts go out with `createBatch`
// (100 per call). A version with no binding is never sent to another version's Workflow: its job
// is dead-lettered VERSION_NOT_ROUTABLE in D1 (fenced: only while still `queued`) and announced on
// the DLQ queue (so is a job the acceptor dead-letters at submit: `announceDeadLetter`). `stopRun`
// terminates a cancelled job's instance. `runs` reads instance statuses and restarts an instance,
// for the run recovery of the gateway's cron pass (gateway recover-lost-runs.ts).

import {
  SluiceError,
  type MessagePointer,
  type RunInspector,
  type RunStatus,
} from '@sluice/contracts';
import { CLOUDFLARE_WORKFLOWS_CAPABILITIES } from '../capabilities.js';
import type { DeadLetterNotice, GatewayDispatcher } from '@sluice/gateway/cloudflare';
import { transitionJob, type SluiceDatabase } from '@sluice/storage/portable';
import { workflowsRunStatus } from '../workflows-run-status.js';
import type { QueueLike, WorkflowBindingLike } from '../platform.js';

/** Instances per `createBatch` call (the platform's limit). */
export const CREATE_BATCH_LIMIT = 100;

export interface WorkflowsDispatcherOptions {
  database: SluiceDatabase;
  /** version → its Workflow binding (`{ v1: env.WF_V1, v2: env.WF_V2 }`). */
  workflows: Readonly<Record<string, WorkflowBindingLike<MessagePointer> | undefined>>;
  /** Where dead letters are announced (the worker half's DLQ consumer); optional. */
  deadLetters?: QueueLike<unknown> | undefined;
  onError?: ((error: unknown) => void) | undefined;
}

export interface WorkflowsDispatcher extends GatewayDispatcher {
  /** Terminates the instance of a cancelled job (a finished or missing one is left alone). */
  stopRun(job: { id: string; version: string }): Promise<void>;
  /**
   * Puts a dead letter's message on the DLQ queue (at dispatch here; at submit the acceptor, in
   * run recovery the gateway's cron pass call it).
   */
  announceDeadLetter(dead: DeadLetterNotice): Promise<void>;
  readonly runs: RunInspector;
}

const bound = (opts: WorkflowsDispatcherOptions) =>
  Object.keys(opts.workflows).filter((v) => opts.workflows[v]);

function bindingOf(opts: WorkflowsDispatcherOptions, version: string) {
  return Object.hasOwn(opts.workflows, version) ? opts.workflows[version] : undefined;
}

/** `create` that treats an existing instance of this id as success. */
async function createOnce(binding: WorkflowBindingLike<MessagePointer>, p: MessagePointer) {
  try {
    await binding.create({ id: p.jobId, params: p });
  } catch (error) {
    const existing = await binding.get(p.jobId).catch(() => undefined);
    if (!existing) throw error;
  }
}

async function createAll(
  binding: WorkflowBindingLike<MessagePointer>,
  pointers: readonly MessagePointer[],
): Promise<void> {
  if (pointers.length === 1 || !binding.createBatch) {
    for (const p of pointers) await createOnce(binding, p);
    return;
  }
  for (let i = 0; i < pointers.length; i += CREATE_BATCH_LIMIT) {
    const chunk = pointers.slice(i, i + CREATE_BATCH_LIMIT);
    try {
      await binding.createBatch(chunk.map((p) => ({ id: p.jobId, params: p })));
    } catch {
      // A batch refused as a whole (one bad entry): one at a time, so the others still go.
      for (const p of chunk) await createOnce(binding, p);
    }
  }
}

/** Instance statuses read at once per inspect call (each is one binding call). */
const INSPECT_CONCURRENCY = 10;
/** How the engine words a missing instance (production: `instance.not_found`; local: "does not exist"). */
const NOT_FOUND = /not_found|not found|does not exist/i;

function workflowRuns(opts: WorkflowsDispatcherOptions): RunInspector {
  return {
    async inspect(jobs) {
      const out = new Map<string, RunStatus>();
      for (let i = 0; i < jobs.length; i += INSPECT_CONCURRENCY) {
        await Promise.all(
          jobs.slice(i, i + INSPECT_CONCURRENCY).map(async (job) => {
            const binding = bindingOf(opts, job.version);
            // No binding for the version: nothing could be restarted here; left alone.
            if (!binding) return void out.set(job.id, 'unknown');
            let instance;
            try {
              instance = await binding.get(job.id);
            } catch (error) {
              // `get` of an id the engine never created throws `instance.not_found`; any other
              // failure says nothing about the run (asked again next pass).
              return void out.set(job.id, NOT_FOUND.test(String(error)) ? 'not_found' : 'unknown');
            }
            const { status } = await instance.status();
            out.set(job.id, workflowsRunStatus(status));
          }),
        );
      }
      return out;
    },
    async restart(job) {
      const binding = bindingOf(opts, job.version);
      if (!binding) return;
      const instance = await binding.get(job.id);
      if (!instance.restart) {
        throw new SluiceError(
          'INVALID_CONFIG',
          `the ${job.version} Workflow binding has no restart`,
        );
      }
      await instance.restart();
    },
  };
}

export function createWorkflowsDispatcher(opts: WorkflowsDispatcherOptions): WorkflowsDispatcher {
  const announceDeadLetter: WorkflowsDispatcher['announceDeadLetter'] = async (dead) => {
    await opts.deadLetters?.send({ ...dead.pointer, reason: dead.reason, detail: dead.detail });
  };
  async function deadLetter(p: MessagePointer): Promise<void> {
    const detail = `no Workflow binding serves ${p.version} (bound: ${bound(opts).join(', ') || 'none'})`;
    const r = await transitionJob(opts.database.db, {
      id: p.jobId,
      event: 'dead_letter',
      reason: 'VERSION_NOT_ROUTABLE',
      detail,
    });
    if (r.ok) await announceDeadLetter({ pointer: p, reason: 'VERSION_NOT_ROUTABLE', detail });
  }

  return {
    name: 'cloudflare-workflows',
    capabilities: CLOUDFLARE_WORKFLOWS_CAPABILITIES,
    async dispatch(pointers) {
      const byVersion = new Map<string, MessagePointer[]>();
      for (const p of pointers) byVersion.set(p.version, [...(byVersion.get(p.version) ?? []), p]);
      for (const [version, group] of byVersion) {
        const binding = bindingOf(opts, version);
        if (!binding) for (const p of group) await deadLetter(p);
        else await createAll(binding, group);
      }
    },
    // Every kind runs on every bound version's Workflow class; an unbound version is unroutable.
    servedVersions: async () => bound(opts),
    async stopRun(job) {
      const binding = bindingOf(opts, job.version);
      const instance = await binding?.get(job.id).catch(() => undefined);
      if (!instance) return;
      try {
        await instance.terminate();
      } catch (error) {
        // Terminating a finished instance throws; only a live one that would not stop matters.
        const { status } = await instance.status();
        if (!['complete', 'errored', 'terminated'].includes(status)) throw error;
      }
    },
    announceDeadLetter,
    runs: workflowRuns(opts),
    close: async () => {},
  };
}
