// The few calls of the Cloudflare Workflows REST API (client/v4) a Node gateway needs to dispatch:
//
//   POST /accounts/{account_id}/workflows/{workflow_name}/instances        one instance
//   POST /accounts/{account_id}/workflows/{workflow_name}/instances/batch  up to 100 (an array)
//   GET  /accounts/{account_id}/workflows/{workflow_name}/instances/{id}   does it exist? its status
//   PATCH /accounts/{account_id}/workflows/{workflow_name}/instances/{id}/status  { status: 'restart' }
//
// Every answer is Cloudflare's envelope `{ success, errors, result }`, parsed with zod. A 429 is
// retried after its `Retry-After` (seconds or an HTTP date; every caller of the client pauses
// until then, through `onRateLimited`), a 5xx or a failed connection after an exponential
// backoff; other 4xx are final. Retrying a create is safe: the instance id is the job id, and an
// id that exists is never a second instance.

import { SluiceError } from '@sluice/contracts';
import { z } from 'zod';
import { systemClock, type Clock } from './token-bucket.js';

export const CLOUDFLARE_API_BASE = 'https://api.cloudflare.com/client/v4';

const Envelope = z.object({
  success: z.boolean(),
  errors: z.array(z.object({ code: z.number().optional(), message: z.string() })).default([]),
  result: z.unknown().optional(),
});

const Instance = z.object({ id: z.string() }).loose();
const InstanceStatus = z.object({ status: z.string() }).loose();

export interface CreateInstanceBody {
  instance_id: string;
  params: unknown;
}

export interface WorkflowsRestClientOptions {
  accountId: string;
  apiToken: string;
  /** Default https://api.cloudflare.com/client/v4 (tests point it at a local fake). */
  apiBase?: string | undefined;
  /** Tries per request on 429, 5xx and connection failures (default 6). */
  maxTries?: number | undefined;
  /** First backoff after a 5xx (default 250 ms), doubled per try, at most 10 s. */
  backoffMs?: number | undefined;
  clock?: Clock | undefined;
  /** A 429 said to wait until then (the dispatcher pauses its buckets). */
  onRateLimited?: ((untilMs: number) => void) | undefined;
  /** Each request's timeout (default 15 s). */
  timeoutMs?: number | undefined;
}

export interface WorkflowsRestClient {
  /** Ids the batch created; ids that existed already are skipped by the API and missing here. */
  createBatch(workflow: string, items: readonly CreateInstanceBody[]): Promise<Set<string>>;
  /** 'created', or 'refused' with the API's message (an id that exists, among others). */
  create(workflow: string, item: CreateInstanceBody): Promise<'created' | { refused: string }>;
  exists(workflow: string, id: string): Promise<boolean>;
  /** The instance's status as the API words it (`running`, `errored`, …), or 'not_found'. */
  status(workflow: string, id: string): Promise<string>;
  /** Starts the instance again from its first step. */
  restart(workflow: string, id: string): Promise<void>;
  readonly stats: { requests: number; rateLimited: number; serverErrors: number };
}

/** Retry-After as milliseconds from now: delta-seconds or an HTTP date; 1 s when unreadable. */
export function retryAfterMs(header: string | null, now: number): number {
  if (header) {
    const seconds = Number(header);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
    const at = Date.parse(header);
    if (Number.isFinite(at)) return Math.max(0, at - now);
  }
  return 1000;
}

export function createWorkflowsRestClient(opts: WorkflowsRestClientOptions): WorkflowsRestClient {
  const base = (opts.apiBase ?? CLOUDFLARE_API_BASE).replace(/\/+$/, '');
  const clock = opts.clock ?? systemClock;
  const maxTries = opts.maxTries ?? 6;
  const backoffMs = opts.backoffMs ?? 250;
  const stats = { requests: 0, rateLimited: 0, serverErrors: 0 };
  const path = (workflow: string, rest = '') =>
    `${base}/accounts/${encodeURIComponent(opts.accountId)}/workflows/${encodeURIComponent(workflow)}/instances${rest}`;

  type Answer = { status: number; envelope: z.infer<typeof Envelope> | undefined };

  async function send(
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    body?: unknown,
  ): Promise<Answer> {
    let lastError: unknown;
    for (let attempt = 1; attempt <= maxTries; attempt++) {
      let res: Response;
      try {
        stats.requests++;
        res = await fetch(url, {
          method,
          headers: {
            authorization: `Bearer ${opts.apiToken}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(opts.timeoutMs ?? 15_000),
        });
      } catch (error) {
        lastError = error; // no answer: retried like a 5xx (a create is idempotent by id)
        await clock.sleep(Math.min(10_000, backoffMs * 2 ** (attempt - 1)));
        continue;
      }
      if (res.status === 429) {
        stats.rateLimited++;
        await res.body?.cancel();
        const wait = retryAfterMs(res.headers.get('retry-after'), clock.now());
        opts.onRateLimited?.(clock.now() + wait);
        lastError = new SluiceError('RATE_LIMITED', `${method} ${url}: 429`);
        await clock.sleep(wait);
        continue;
      }
      if (res.status >= 500) {
        stats.serverErrors++;
        await res.body?.cancel();
        lastError = new SluiceError('UNAVAILABLE', `${method} ${url}: ${res.status}`);
        await clock.sleep(Math.min(10_000, backoffMs * 2 ** (attempt - 1)));
        continue;
      }
      const text = await res.text();
      let envelope: z.infer<typeof Envelope> | undefined;
      try {
        const parsed = Envelope.safeParse(JSON.parse(text));
        envelope = parsed.success ? parsed.data : undefined;
      } catch {
        envelope = undefined;
      }
      return { status: res.status, envelope };
    }
    throw lastError instanceof SluiceError
      ? lastError
      : new SluiceError('UNAVAILABLE', `${method} ${url}: no answer after ${maxTries} tries`, {
          cause: lastError,
        });
  }

  const messageOf = (a: Answer) =>
    a.envelope?.errors.map((e) => `${e.code ?? ''} ${e.message}`.trim()).join('; ') ||
    `HTTP ${a.status}`;

  return {
    stats,
    async createBatch(workflow, items) {
      const a = await send('POST', path(workflow, '/batch'), items);
      const result = z.array(Instance).safeParse(a.envelope?.result);
      if (a.status >= 300 || !a.envelope?.success || !result.success) {
        throw new SluiceError('UNAVAILABLE', `batch create on ${workflow}: ${messageOf(a)}`);
      }
      return new Set(result.data.map((i) => i.id));
    },
    async create(workflow, item) {
      const a = await send('POST', path(workflow), item);
      if (a.status < 300 && a.envelope?.success) return 'created';
      // 4xx: final. Whether it means "exists" is decided by a GET, never by the message's wording.
      return { refused: messageOf(a) };
    },
    async exists(workflow, id) {
      const a = await send('GET', path(workflow, `/${encodeURIComponent(id)}`));
      if (a.status === 404) return false;
      if (a.status < 300 && a.envelope?.success) return true;
      throw new SluiceError('UNAVAILABLE', `get ${workflow}/${id}: ${messageOf(a)}`);
    },
    async status(workflow, id) {
      const a = await send('GET', path(workflow, `/${encodeURIComponent(id)}`));
      if (a.status === 404) return 'not_found';
      const result = InstanceStatus.safeParse(a.envelope?.result);
      if (a.status < 300 && a.envelope?.success && result.success) return result.data.status;
      throw new SluiceError('UNAVAILABLE', `status of ${workflow}/${id}: ${messageOf(a)}`);
    },
    async restart(workflow, id) {
      const a = await send('PATCH', path(workflow, `/${encodeURIComponent(id)}/status`), {
        status: 'restart',
      });
      if (a.status < 300 && a.envelope?.success) return;
      throw new SluiceError('UNAVAILABLE', `restart ${workflow}/${id}: ${messageOf(a)}`);
    },
  };
}
