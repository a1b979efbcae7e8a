// A local fake of the documented Cloudflare Workflows REST API (client/v4), as a real HTTP server
// on loopback: create, batch create and get of instances, Cloudflare's `{ success, errors,
// result }` envelope, bearer-token auth, and what production does with ids: a single create of
// an existing id is refused, a batch skips ids that exist. Faults are armed per test: the next N
// requests answer 429 (with Retry-After) or 5xx. Every request is recorded with what it carried.
// Each instance has a status (`queued` when created; a test sets another with `setStatus`, as
// the engine would move it) and `PATCH …/status` changes it: `restart` puts it back to `queued`
// and counts the restart, `terminate` ends it `terminated`.
// `onCreate` makes a create real: the end-to-end test starts each instance on a workerd Workflow
// (a failure there answers 500 and the instance is not recorded).

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeInstance {
  id: string;
  workflow: string;
  params: unknown;
  status?: string | undefined;
  restarts?: number | undefined;
}

export interface FakeRequest {
  method: string;
  path: string;
  /** Instances the request asked to create (batch: all of them). */
  ids: string[];
  status: number;
}

export interface FakeWorkflowsApi {
  readonly url: string;
  readonly instances: Map<string, FakeInstance>;
  readonly requests: FakeRequest[];
  /** The next `times` requests answer `status` (429 with `retryAfter` seconds, or a 5xx). */
  fail(status: number, times: number, retryAfter?: string): void;
  /** Moves an instance to `status` as the engine would (`errored`, `complete`, …). */
  setStatus(workflow: string, id: string, status: string): void;
  close(): Promise<void>;
}

const ROUTE =
  /^\/client\/v4\/accounts\/([^/]+)\/workflows\/([^/]+)\/instances(?:\/(batch|[A-Za-z0-9_-]+))?(\/status)?$/;

export async function startFakeWorkflowsApi(opts: {
  accountId: string;
  apiToken: string;
  onCreate?: ((instance: FakeInstance) => Promise<void>) | undefined;
}): Promise<FakeWorkflowsApi> {
  const instances = new Map<string, FakeInstance>();
  const requests: FakeRequest[] = [];
  let faults: { status: number; times: number; retryAfter: string | undefined } | undefined;

  const send = (res: ServerResponse, status: number, body: unknown, headers = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const ok = (result: unknown) => ({ success: true, errors: [], messages: [], result });
  const err = (code: number, message: string) => ({
    success: false,
    errors: [{ code, message }],
    messages: [],
    result: null,
  });
  const view = (i: FakeInstance) => ({
    id: i.id,
    status: i.status ?? 'queued',
    version_id: 'ver-1',
    workflow_id: `wf-${i.workflow}`,
  });

  async function readJson(req: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
  }

  const server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const record: FakeRequest = { method: req.method ?? '', path, ids: [], status: 0 };
      requests.push(record);
      const answer = (status: number, body: unknown, headers = {}) => {
        record.status = status;
        send(res, status, body, headers);
      };
      const body =
        req.method === 'POST' || req.method === 'PATCH'
          ? await readJson(req).catch(() => undefined)
          : undefined;
      const items = Array.isArray(body) ? body : body ? [body] : [];
      record.ids = items.map((i) => String((i as { instance_id?: unknown }).instance_id));
      if (req.headers.authorization !== `Bearer ${opts.apiToken}`)
        return answer(403, err(10000, 'Authentication error'));
      const m = ROUTE.exec(path);
      if (!m || m[1] !== opts.accountId) return answer(404, err(7003, 'No route for that URI'));
      if (faults && faults.times > 0) {
        faults.times--;
        const headers = faults.retryAfter ? { 'retry-after': faults.retryAfter } : {};
        return answer(faults.status, err(faults.status, 'fault'), headers);
      }
      const workflow = decodeURIComponent(m[2] as string);
      const key = (id: string) => `${workflow}/${id}`;
      const tail = m[3];
      if (m[4]) {
        const i = tail && tail !== 'batch' ? instances.get(key(tail)) : undefined;
        if (req.method !== 'PATCH') return answer(405, err(10000, 'method not allowed'));
        if (!i) return answer(404, err(10001, 'instance.not_found'));
        const to = (body as { status?: unknown } | undefined)?.status;
        if (to === 'restart') {
          i.status = 'queued';
          i.restarts = (i.restarts ?? 0) + 1;
        } else if (to === 'terminate') i.status = 'terminated';
        else if (to === 'pause') i.status = 'paused';
        else if (to === 'resume') i.status = 'running';
        else return answer(400, err(10003, 'status must be restart, terminate, pause or resume'));
        return answer(200, ok({ status: i.status, timestamp: new Date().toISOString() }));
      }
      if (req.method === 'GET' && tail && tail !== 'batch') {
        const i = instances.get(key(tail));
        return i ? answer(200, ok(view(i))) : answer(404, err(10001, 'instance.not_found'));
      }
      if (req.method !== 'POST') return answer(405, err(10000, 'method not allowed'));
      if (tail === 'batch') {
        if (!Array.isArray(body) || body.length > 100)
          return answer(400, err(10021, 'batch must be an array of at most 100'));
        const created: FakeInstance[] = [];
        for (const item of body as { instance_id: string; params: unknown }[]) {
          if (instances.has(key(item.instance_id))) continue; // production skips existing ids
          const i = { id: item.instance_id, workflow, params: item.params };
          await opts.onCreate?.(i);
          instances.set(key(i.id), i);
          created.push(i);
        }
        return answer(200, ok(created.map(view)));
      }
      if (tail) return answer(404, err(7003, 'No route for that URI'));
      const item = body as { instance_id: string; params: unknown };
      if (instances.has(key(item.instance_id)))
        return answer(409, err(10002, 'instance.already_exists'));
      const i = { id: item.instance_id, workflow, params: item.params };
      await opts.onCreate?.(i);
      instances.set(key(i.id), i);
      return answer(200, ok(view(i)));
    })().catch((error: unknown) => send(res, 500, err(500, String(error))));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/client/v4`,
    instances,
    requests,
    fail(status, times, retryAfter) {
      faults = { status, times, retryAfter };
    },
    setStatus(workflow, id, status) {
      const i = instances.get(`${workflow}/${id}`);
      if (!i) throw new Error(`no instance ${workflow}/${id}`);
      i.status = status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
