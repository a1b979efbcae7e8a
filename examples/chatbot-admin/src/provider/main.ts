// The fake AI provider as its own process (`node --import tsx main.ts`): it stands in for a paid
// model API. POST /v1/classify (sync: category + tables), POST /v1/intent-jobs (async: an id to
// poll), GET /v1/intent-jobs/:id. Every billed request is in the ledger before the answer, and
// every accepted intent job in its data folder (AI_DATA_DIR), so a restart forgets neither.
// Env: PORT, AI_LEDGER, AI_DATA_DIR, AI_FAULTS; AI_EXIT_WITH_PARENT=1 when the app started it.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { z } from 'zod';
import { createFaultBook, FaultRules } from './faults.js';
import { createIntentJobStore } from './intent-jobs.js';
import { appendBill, readLedger } from './ledger.js';
import { classify, extractTables, generateIntents, keywords, type ModelTable } from './model.js';

const ledgerPath = process.env.AI_LEDGER ?? 'ai-ledger.jsonl';
const faults = createFaultBook(FaultRules.parse(JSON.parse(process.env.AI_FAULTS ?? '[]')));
const intentJobs = createIntentJobStore(process.env.AI_DATA_DIR ?? 'intent-jobs');

const ClassifyBody = z.object({
  text: z.string().max(200_000),
  label: z.string(),
  rows: z.array(z.array(z.string())).optional(),
  /** `keywords`: also answer the text's main terms (what the v2 analyzer asks for). */
  detail: z.enum(['keywords']).optional(),
});
const IntentBody = z.object({
  text: z.string().max(200_000),
  category: z.string(),
  tables: z.array(
    z.object({
      title: z.string(),
      columns: z.array(z.string()),
      rows: z.array(z.array(z.string())),
    }),
  ),
});

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
}

function send(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function caller(req: IncomingMessage) {
  const h = (n: string) => (typeof req.headers[n] === 'string' ? (req.headers[n] as string) : null);
  return {
    jobId: h('x-job-id') ?? '-',
    unitKey: h('x-unit-key') ?? '-',
    attemptId: h('x-attempt-id'),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://x');
  if (req.method === 'POST' && url.pathname === '/admin/faults') {
    faults.set(FaultRules.parse(await readJson(req)));
    return send(res, 200, { faults: faults.list() });
  }
  if (req.method === 'GET' && url.pathname === '/admin/faults')
    return send(res, 200, { faults: faults.list() });
  if (req.method === 'GET' && url.pathname === '/admin/ledger')
    return send(res, 200, { bills: readLedger(ledgerPath) });
  const who = caller(req);
  if (
    req.method === 'POST' &&
    (url.pathname === '/v1/classify' || url.pathname === '/v1/intent-jobs')
  ) {
    const call = url.pathname === '/v1/classify' ? 'classify' : 'intents';
    const body = await readJson(req);
    const fault = faults.take({ call, ...who }, 'request');
    if (fault?.fault === 'fail-before')
      return send(res, 503, { error: 'overloaded, nothing done' });
    if (fault?.fault === 'slow' && call === 'classify') await sleep(fault.delayMs);
    const workId = randomUUID();
    let answer: unknown;
    if (call === 'classify') {
      const b = ClassifyBody.parse(body);
      const { category, confidence } = classify(b.text);
      answer = {
        category,
        confidence,
        tables: extractTables(b.text, b.rows, b.label) as ModelTable[],
        ...(b.detail === 'keywords' ? { keywords: keywords(b.text) } : {}),
      };
    } else {
      const b = IntentBody.parse(body);
      const delay = fault?.fault === 'slow' ? fault.delayMs : 150;
      intentJobs.put(workId, {
        readyAt: Date.now() + delay,
        failed: fault?.fault === 'async-fail',
        intents: generateIntents(b),
      });
      answer = { id: workId, status: 'running' };
    }
    appendBill(ledgerPath, { call, ...who, workId, fault: fault?.fault ?? null });
    // Billed, then the answer is lost: the caller cannot tell whether it happened.
    if (fault?.fault === 'commit-then-drop') return req.socket.destroy();
    return send(res, 200, answer);
  }
  const m = /^\/v1\/intent-jobs\/([0-9a-f-]{36})$/.exec(url.pathname);
  if (req.method === 'GET' && m) {
    // Polls are never billed; a failing poll answers 503 and leaves the intent job as it is.
    if (faults.take({ call: 'intents', ...who }, 'poll')?.fault === 'fail-poll')
      return send(res, 503, { error: 'status service unavailable' });
    const job = intentJobs.get(m[1]!);
    if (!job) return send(res, 404, { error: 'no such intent job' });
    if (Date.now() < job.readyAt) return send(res, 200, { id: m[1], status: 'running' });
    if (job.failed)
      return send(res, 200, { id: m[1], status: 'failed', error: 'intent generation failed' });
    return send(res, 200, { id: m[1], status: 'succeeded', intents: job.intents });
  }
  send(res, 404, { error: 'not found' });
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    if (!res.headersSent) send(res, 400, { error: String(error) });
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`AI_PROVIDER_READY port=${port}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
// Started by the app, the provider lives as long as the app's process: the app holds the write
// end of this process's stdin and never writes, and the kernel closes it when the app ends in
// any way, a SIGKILL included. Without this a killed app left the provider running, orphaned.
if (process.env.AI_EXIT_WITH_PARENT === '1') {
  process.stdin.on('data', () => undefined);
  process.stdin.once('end', () => {
    server.closeAllConnections();
    stop();
  });
}
