// The few HTTP helpers the example providers share (plain node:http: these stand in for a
// third-party service, not for Sluice code).
import type { IncomingMessage, ServerResponse } from 'node:http';

export async function readJson(req: IncomingMessage, limit = 1 << 20): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Who is calling, from the headers the example's handler sends (the guard adds Idempotency-Key). */
export function callerOf(req: IncomingMessage) {
  const h = (name: string) => {
    const v = req.headers[name];
    return typeof v === 'string' && v !== '' ? v : null;
  };
  return {
    jobId: h('x-job-id') ?? '-',
    unitKey: h('x-unit-key') ?? '-',
    attemptId: h('x-attempt-id'),
    idempotencyKey: h('idempotency-key'),
  };
}
