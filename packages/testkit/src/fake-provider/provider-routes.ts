// The paid endpoints. Order inside one request: validate → fault that strikes before processing
// (503, 422, hang, slow) → commit (bill + durable ledger record) → fault that strikes after the
// commit (drop the socket, 500) → answer. The record is on disk before any byte of the answer.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ActiveFault, FaultRuleError, parseHeaderFault } from './faults.js';
import { header, readJsonBody, sendJson } from './http-io.js';
import type { ProviderState } from './provider-state.js';
import type { CallOutcome, FakeProviderEndpoint, LedgerRecord } from './types.js';

type BillableEndpoint = LedgerRecord['endpoint'];

/** Header fault if present, else the first matching admin rule; an Error for a bad header. */
function resolveFault(
  state: ProviderState,
  req: IncomingMessage,
  endpoint: FakeProviderEndpoint,
  jobId: string | null,
  unitKey: string | null,
): ActiveFault | undefined | Error {
  const fromHeader = parseHeaderFault(header(req, 'x-fault'), header(req, 'x-fault-delay-ms'));
  if (fromHeader instanceof FaultRuleError) return fromHeader;
  if (fromHeader?.fault === 'async-fail' && endpoint !== 'async') {
    return new FaultRuleError('async-fail applies only to POST /v1/async/jobs');
  }
  return fromHeader ?? state.faults.take({ endpoint, jobId, unitKey });
}

function outcomeAfterCommit(fault: ActiveFault | undefined): CallOutcome {
  if (fault?.fault === 'commit-then-drop') return 'dropped';
  if (fault?.fault === 'http-5xx') return 'failed-5xx';
  return 'ok';
}

export async function handleBillable(
  state: ProviderState,
  endpoint: BillableEndpoint,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readJsonBody(req);
  const jobId = header(req, 'x-job-id');
  const unitKey = header(req, 'x-unit-key');
  if (jobId === undefined || unitKey === undefined) {
    return sendJson(res, 400, { error: 'x-job-id and x-unit-key headers are required' });
  }
  const requestId = header(req, 'idempotency-key') ?? null;
  const base = {
    endpoint,
    requestId,
    jobId,
    unitKey,
    attemptId: header(req, 'x-attempt-id') ?? null,
    deduplicated: false,
    callId: `call_${randomUUID()}`,
  };
  if (endpoint === 'safe' && requestId === null) {
    // Recorded (unbilled) so a test can see the caller reached the provider without a key.
    state.record({ ...base, fault: null, billed: false, outcome: 'rejected-4xx' });
    return sendJson(res, 400, { error: 'idempotency-key header is required' });
  }
  const active = resolveFault(state, req, endpoint, jobId, unitKey);
  if (active instanceof Error) return sendJson(res, 400, { error: active.message });
  const fault = active?.fault ?? null;

  switch (fault) {
    case 'error-before-processing':
      state.record({ ...base, fault, billed: false, outcome: 'rejected-503' });
      return sendJson(res, 503, { error: 'provider unavailable, nothing was processed' });
    case 'http-4xx':
      state.record({ ...base, fault, billed: false, outcome: 'rejected-4xx' });
      return sendJson(res, 422, { error: 'request rejected, nothing was processed' });
    case 'hang':
      state.record({ ...base, fault, billed: false, outcome: 'hung' });
      return state.holdForever(res);
    case 'slow':
      // The provider keeps working (and bills) even if the caller gives up meanwhile.
      if (!(await state.sleep(active?.delayMs ?? 0))) return;
      break;
    default:
      break;
  }

  const outcome = outcomeAfterCommit(active);
  let answer: unknown;
  if (endpoint === 'safe' && requestId !== null && state.firstCallForKey(requestId)) {
    const first = state.firstCallForKey(requestId) as LedgerRecord;
    state.record({
      ...base,
      callId: first.callId,
      fault,
      billed: false,
      deduplicated: true,
      outcome,
    });
    answer = { result: first.result, callId: first.callId, deduplicated: true };
  } else {
    const result = { output: `generated:${jobId}:${unitKey}:${base.callId}`, input: body };
    if (endpoint === 'async') {
      const externalJobId = `ext_${randomUUID()}`;
      state.record({
        ...base,
        fault,
        billed: true,
        outcome,
        externalJobId,
        asyncStatus: fault === 'async-fail' ? 'failed' : 'succeeded',
        readyAt: Date.now() + state.asyncDelayMs,
        result,
      });
      answer = { externalJobId };
    } else {
      state.record({ ...base, fault, billed: true, outcome, result });
      answer =
        endpoint === 'safe'
          ? { result, callId: base.callId, deduplicated: false }
          : { result, callId: base.callId };
    }
  }

  if (outcome === 'dropped') {
    // Committed and billed, but the caller only sees the connection die after it sent.
    req.socket.destroy();
    return;
  }
  if (outcome === 'failed-5xx') return sendJson(res, 500, { error: 'provider internal error' });
  sendJson(res, 200, answer);
}

/** GET /v1/async/jobs/:id. Never bills, never writes the ledger; faults still apply. */
export async function handlePoll(
  state: ProviderState,
  externalJobId: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const active = resolveFault(
    state,
    req,
    'async-poll',
    header(req, 'x-job-id') ?? null,
    header(req, 'x-unit-key') ?? null,
  );
  if (active instanceof Error) return sendJson(res, 400, { error: active.message });
  switch (active?.fault) {
    case 'error-before-processing':
      return sendJson(res, 503, { error: 'provider unavailable' });
    case 'http-4xx':
      return sendJson(res, 422, { error: 'poll rejected' });
    case 'http-5xx':
      return sendJson(res, 500, { error: 'provider internal error' });
    case 'commit-then-drop':
      req.socket.destroy();
      return;
    case 'hang':
      return state.holdForever(res);
    case 'slow':
      if (!(await state.sleep(active.delayMs))) return;
      break;
    default:
      break;
  }
  const job = state.asyncJob(externalJobId);
  if (!job) return sendJson(res, 404, { error: 'unknown external job id' });
  if (Date.now() < (job.readyAt ?? 0))
    return sendJson(res, 200, { externalJobId, status: 'running' });
  if (job.asyncStatus === 'failed') {
    return sendJson(res, 200, {
      externalJobId,
      status: 'failed',
      error: 'the provider job failed',
    });
  }
  sendJson(res, 200, { externalJobId, status: 'succeeded', result: job.result });
}
