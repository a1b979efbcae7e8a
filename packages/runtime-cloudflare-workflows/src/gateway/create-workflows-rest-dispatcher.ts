// The Cloudflare Workflows runtime's dispatch half for a Node gateway: one Workflow instance per
// job, created over the REST API (instance id = job id, params = the pointer), on the Workflow
// configured for the job's version — never on another version's.
//
// - batching: pointers of one Workflow go out 100 per `instances/batch` call (the API's limit);
// - rate: a token bucket per Workflow (100 creates/s) and one for the account (300/s), taken
//   before each call; a 429 pauses both buckets until its Retry-After, and the call is retried;
// - "already exists" is dispatched: the batch endpoint skips ids that exist, a single create
//   refuses them; either way a GET confirms the instance is there (the message's wording is not
//   trusted), and an id that is not there after all is created on its own;
// - a version with no configured Workflow: the job is dead-lettered VERSION_NOT_ROUTABLE in the
//   gateway's database (fenced by the epoch read), and `servedVersions` answers the configured
//   versions, so the accept path dead-letters such a job before it is ever dispatched.
//
// A failure (5xx past the retries, a network outage) throws: the outbox rows stay and the
// reconciler dispatches again, which creates nothing twice.
//
// `runs` answers the run recovery (gateway `recoverLostRuns`, a reconciler step): each job's
// instance status by GET, and a restart by `PATCH …/status { status: 'restart' }`.

import {
  SluiceError,
  type MessagePointer,
  type RunInspector,
  type RunStatus,
  type RuntimeDispatcher,
} from '@sluice/contracts';
import { CLOUDFLARE_WORKFLOWS_VIA_GATEWAY_CAPABILITIES } from '../capabilities.js';
import { workflowsRunStatus } from '../workflows-run-status.js';
import { getJobById, transitionJob, type Db, type SluiceDatabase } from '@sluice/storage';
import { createTokenBucket, type Clock, type TokenBucket } from './token-bucket.js';
import {
  createWorkflowsRestClient,
  type WorkflowsRestClient,
  type WorkflowsRestClientOptions,
} from './workflows-rest-client.js';

/** The documented limits (Workflows › Limits, paid plan). */
export const WORKFLOWS_CREATE_LIMITS = { perWorkflow: 100, perAccount: 300, batch: 100 } as const;

/** Instance statuses read at once (each is one GET, under the API's per-account rate). */
const INSPECT_CONCURRENCY = 5;

export interface WorkflowsRestDispatcherOptions extends Omit<
  WorkflowsRestClientOptions,
  'onRateLimited' | 'clock'
> {
  database: SluiceDatabase;
  /** version → Workflow name (`{ v1: 'summarize-v1', v2: 'summarize-v2' }`). */
  workflows: Readonly<Record<string, string>>;
  /** Override the documented limits (lower them for a shared account). */
  limits?: { perWorkflow?: number; perAccount?: number; batch?: number } | undefined;
  /** Tests: the clock the buckets and the backoff wait on. */
  clock?: Clock | undefined;
}

export interface WorkflowsRestDispatcher extends RuntimeDispatcher<Db> {
  readonly client: WorkflowsRestClient;
  /** Creates sent, confirmed existing, dead-lettered (tests and metrics). */
  readonly counts: { created: number; existed: number; deadLettered: number; calls: number };
  readonly runs: RunInspector;
}

export function createWorkflowsRestDispatcher(
  opts: WorkflowsRestDispatcherOptions,
): WorkflowsRestDispatcher {
  const limits = { ...WORKFLOWS_CREATE_LIMITS, ...opts.limits };
  // A batch takes as many tokens as it creates: never more than a bucket holds, or a lowered
  // limit would be exceeded by one call.
  const batchSize = Math.max(
    1,
    Math.floor(
      Math.min(limits.batch, WORKFLOWS_CREATE_LIMITS.batch, limits.perWorkflow, limits.perAccount),
    ),
  );
  const account = createTokenBucket({ ratePerSecond: limits.perAccount, clock: opts.clock });
  const perWorkflow = new Map<string, TokenBucket>();
  const bucketOf = (workflow: string) => {
    let b = perWorkflow.get(workflow);
    if (!b) {
      b = createTokenBucket({ ratePerSecond: limits.perWorkflow, clock: opts.clock });
      perWorkflow.set(workflow, b);
    }
    return b;
  };
  const client = createWorkflowsRestClient({
    ...opts,
    onRateLimited: (until) => {
      account.pauseUntil(until);
      for (const b of perWorkflow.values()) b.pauseUntil(until);
    },
  });
  const counts = { created: 0, existed: 0, deadLettered: 0, calls: 0 };
  const workflowOf = (version: string) =>
    Object.hasOwn(opts.workflows, version) ? opts.workflows[version] : undefined;

  async function deadLetter(p: MessagePointer): Promise<void> {
    const row = await getJobById(opts.database.db, p.jobId);
    if (!row) return;
    const served = Object.keys(opts.workflows).join(', ') || 'none';
    const r = await transitionJob(opts.database.db, {
      id: p.jobId,
      event: 'dead_letter',
      epoch: row.epoch,
      reason: 'VERSION_NOT_ROUTABLE',
      detail: `no Workflow is configured for ${p.version} (configured: ${served})`,
    });
    if (r.ok) counts.deadLettered++;
  }

  /** Ids the batch did not create: there already (dispatched), or created one by one. */
  async function settle(workflow: string, pointer: MessagePointer): Promise<void> {
    if (await client.exists(workflow, pointer.jobId)) {
      counts.existed++;
      return;
    }
    const answer = await client.create(workflow, { instance_id: pointer.jobId, params: pointer });
    if (answer === 'created') {
      counts.created++;
      return;
    }
    // Refused: dispatched only if the instance is there now (created by a racing gateway).
    if (await client.exists(workflow, pointer.jobId)) {
      counts.existed++;
      return;
    }
    throw new SluiceError('UNAVAILABLE', `create ${workflow}/${pointer.jobId}: ${answer.refused}`);
  }

  async function sendChunk(workflow: string, chunk: readonly MessagePointer[]): Promise<void> {
    await bucketOf(workflow).take(chunk.length);
    await account.take(chunk.length);
    counts.calls++;
    const created = await client.createBatch(
      workflow,
      chunk.map((p) => ({ instance_id: p.jobId, params: p })),
    );
    counts.created += chunk.filter((p) => created.has(p.jobId)).length;
    for (const p of chunk) if (!created.has(p.jobId)) await settle(workflow, p);
  }

  const runs: RunInspector = {
    async inspect(jobs) {
      const out = new Map<string, RunStatus>();
      // One GET each (the API has no batch read), a few at a time.
      for (let i = 0; i < jobs.length; i += INSPECT_CONCURRENCY) {
        await Promise.all(
          jobs.slice(i, i + INSPECT_CONCURRENCY).map(async (job) => {
            const workflow = workflowOf(job.version);
            // A version with no Workflow: nothing to restart; the dispatch dead-letters it.
            if (!workflow) return void out.set(job.id, 'unknown');
            const status = await client.status(workflow, job.id).catch(() => 'unknown');
            out.set(job.id, status === 'not_found' ? 'not_found' : workflowsRunStatus(status));
          }),
        );
      }
      return out;
    },
    async restart(job) {
      const workflow = workflowOf(job.version);
      if (workflow) await client.restart(workflow, job.id);
    },
  };

  return {
    name: 'cloudflare-workflows',
    capabilities: CLOUDFLARE_WORKFLOWS_VIA_GATEWAY_CAPABILITIES,
    client,
    counts,
    runs,
    async dispatch(pointers) {
      const byWorkflow = new Map<string, MessagePointer[]>();
      for (const p of pointers) {
        const workflow = workflowOf(p.version);
        if (!workflow) {
          await deadLetter(p);
          continue;
        }
        const list = byWorkflow.get(workflow);
        if (list) list.push(p);
        else byWorkflow.set(workflow, [p]);
      }
      // Workflows side by side (each has its own bucket); chunks of one Workflow in order.
      const failures: unknown[] = [];
      await Promise.all(
        [...byWorkflow].map(async ([workflow, list]) => {
          for (let i = 0; i < list.length; i += batchSize) {
            try {
              await sendChunk(workflow, list.slice(i, i + batchSize));
            } catch (error) {
              failures.push(error);
              return; // this Workflow's rest stays in the outbox
            }
          }
        }),
      );
      if (failures.length > 0) throw failures[0];
    },
    // The configured versions: the accept path dead-letters any other before dispatch.
    servedVersions: async () => Object.keys(opts.workflows),
    close: async () => {},
  };
}
