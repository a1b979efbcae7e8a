// A paid provider for handler tests: a real HTTP server (the provider guard owns the outgoing
// connection, so a handler's calls must leave through a socket), with the provider's own record
// of what it billed, and fault knobs for the failures that decide retry safety:
//   - `fail-before-processing`: answers an error status, bills nothing (safe to send again);
//   - `commit-then-drop`: bills, then drops the connection without an answer (the caller cannot
//     tell whether it was billed: only the ledger and the call's class decide what happens next);
//   - `slow`: bills and answers after `delayMs` (timeouts, drains, cancels mid-call).
// With `honoursIdempotencyKey`, a repeated `Idempotency-Key` is answered from the first answer
// without billing again, as a provider that deduplicates would.

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const PROVIDER_FAULTS = ['fail-before-processing', 'commit-then-drop', 'slow'] as const;
export type ProviderFault = (typeof PROVIDER_FAULTS)[number];

export interface FaultRule {
  fault: ProviderFault;
  /** How many matching requests it applies to (default 1). */
  times?: number;
  /** `slow`: the delay (default 2000 ms). */
  delayMs?: number;
  /** `fail-before-processing`: the status (default 503). */
  status?: number;
  /** Only requests whose path starts with this (default: every request). */
  path?: string;
}

export interface ProviderRecord {
  method: string;
  path: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: unknown;
  /** Whether the provider charged for it. */
  billed: boolean;
  /** The fault applied, if any. */
  fault: ProviderFault | undefined;
}

export interface FakeProvider {
  /** `http://127.0.0.1:<port>`: build the handler's request URLs from it. */
  readonly url: string;
  /** Every request, in arrival order. */
  readonly requests: readonly ProviderRecord[];
  /** How many requests were billed (optionally: whose path starts with `path`). */
  billed(path?: string): number;
  /** Adds fault rules; the first rule that matches a request applies and uses one of its times. */
  inject(...rules: FaultRule[]): void;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export interface FakeProviderOptions {
  faults?: FaultRule[];
  /** Deduplicate by the `Idempotency-Key` header (default false: every request bills). */
  honoursIdempotencyKey?: boolean;
  /** The JSON answer to a billed request (default `{ id, echo: body }`). */
  answer?: (record: ProviderRecord, index: number) => unknown;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export async function startFakeProvider(opts: FakeProviderOptions = {}): Promise<FakeProvider> {
  const rules: (FaultRule & { times: number })[] = [];
  const requests: ProviderRecord[] = [];
  const answered = new Map<string, unknown>();
  const inject = (...more: FaultRule[]) => {
    for (const r of more) {
      if (!PROVIDER_FAULTS.includes(r.fault)) throw new Error(`unknown fault "${String(r.fault)}"`);
      rules.push({ ...r, times: r.times ?? 1 });
    }
  };
  inject(...(opts.faults ?? []));

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [
          k,
          Array.isArray(v) ? v.join(', ') : (v ?? ''),
        ]),
      );
      const path = (req.url ?? '/').split('?')[0] as string;
      const rule = rules.find((r) => r.times > 0 && (!r.path || path.startsWith(r.path)));
      if (rule) rule.times--;
      const key = headers['idempotency-key'];
      const repeat = opts.honoursIdempotencyKey && key !== undefined && answered.has(key);
      const record: ProviderRecord = {
        method: req.method ?? 'GET',
        path,
        headers,
        body,
        billed: rule?.fault !== 'fail-before-processing' && !repeat,
        fault: rule?.fault,
      };
      requests.push(record);
      if (rule?.fault === 'fail-before-processing') {
        res.writeHead(rule.status ?? 503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'unavailable, nothing was processed' }));
        return;
      }
      const answer = repeat
        ? answered.get(key as string)
        : (opts.answer?.(record, requests.length - 1) ?? {
            id: `bill_${requests.length}`,
            echo: body,
          });
      if (key !== undefined && !repeat) answered.set(key, answer);
      if (rule?.fault === 'commit-then-drop') {
        // Billed above; the caller never hears back.
        req.socket.destroy();
        return;
      }
      if (rule?.fault === 'slow') await new Promise((r) => setTimeout(r, rule.delayMs ?? 2000));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    })().catch((error: unknown) => {
      res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    billed: (path) => requests.filter((r) => r.billed && (!path || r.path.startsWith(path))).length,
    inject,
    close,
    [Symbol.asyncDispose]: close,
  };
}
