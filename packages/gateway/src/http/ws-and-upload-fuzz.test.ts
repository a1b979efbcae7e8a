// Bad-input fuzz over the two transports the HTTP/SSE fuzz does not reach:
// - WebSocket frames: tRPC's wire messages with fuzzed ids, methods, paths and inputs (every
//   procedure, generated from the router), plus frames that are not JSON-RPC at all (garbage
//   text, binary, deep nesting), over sockets with a valid key. Counted: server errors in any
//   answer, requests that never got an answer (hangs), sockets the server closed with 1011,
//   server-error counts in the gateway's metrics, and rows written by rejected calls.
// - Uploads: fuzzed bodies (markup, magic bytes of allowed and refused types, empty, binary),
//   content types and x-filename headers, with valid, wrong and missing keys. Counted: 5xx,
//   crashes, hangs, files/blobs written beyond the 201 answers, temp files left, and stored
//   names that keep markup or control characters.
// PR tier: FUZZ_CASES (default 2,000) per transport and dialect; `npm run fuzz` runs 20,000.

import fc from 'fast-check';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { json, sample, weirdString } from '../testing/fuzz-arbitraries.js';
import { startGateway, type GatewayFixture } from '../testing/fixture.js';
import { openRawSocket, type RawSocket } from '../testing/raw-calls.js';

const CASES = Number(process.env.FUZZ_CASES ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261201);
const HANG_MS = 5000;

/** `s` with lone surrogates replaced (encodeURIComponent throws on them). */
const wellFormed = (s: string) =>
  s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

interface Answer {
  id?: unknown;
  error?: { data?: { code?: string; httpStatus?: number } };
  result?: unknown;
}

describeEachDialect('WebSocket and upload fuzz', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx(), {
      limits: {
        failedAuthPerAddress: { perSecond: 1e6, burst: 1e6 },
        failedAuthPerSecret: { perSecond: 1e6, burst: 1e6 },
        subscriptionsPerSocket: 1e6,
        subscriptionsPerKey: 1e6,
      },
    });
  });
  afterAll(async () => {
    await f?.close();
  });

  it(`${CASES} WebSocket messages: no server error, no unanswered request, nothing written by a rejected call`, async () => {
    const procs = Object.entries(
      f.gateway.router._def.procedures as unknown as Record<string, { _def: { type: string } }>,
    ).map(([path, p]) => ({ path, type: p._def.type }));
    const { id: jobId } = await f.http(f.keyA).jobs.submit.mutate({
      kind: 'demo.echo',
      input: { text: 'seed' },
    });
    const messageArb = fc.oneof(
      // A well-formed request with a fuzzed input (swap one field, or anything at all).
      {
        weight: 6,
        arbitrary: fc
          .record({
            proc: fc.constantFrom(...procs),
            field: fc.nat(),
            value: fc.oneof(weirdString, json),
            mode: fc.constantFrom('swap', 'swap', 'whole', 'valid'),
          })
          .map(({ proc, field, value, mode }) => {
            const s = sample(proc.path, jobId);
            const names = Object.keys(s);
            // Valid calls in between: the socket must keep serving after every bad one.
            const input =
              mode === 'valid'
                ? s
                : mode === 'whole'
                  ? value
                  : { ...s, [names[field % names.length]!]: value };
            return { kind: 'request' as const, method: proc.type, path: proc.path, input };
          }),
      },
      // A request whose envelope is wrong: unknown method or path, odd id types.
      {
        weight: 2,
        arbitrary: fc
          .record({ method: fc.oneof(weirdString, json), path: fc.oneof(weirdString, json) })
          .map((m) => ({ kind: 'envelope' as const, ...m })),
      },
      // Not JSON-RPC at all.
      {
        weight: 2,
        arbitrary: fc
          .oneof(
            fc.string({ unit: 'binary', maxLength: 200 }),
            json.map((v) => JSON.stringify(v) ?? 'null'),
            fc.integer({ min: 33, max: 20_000 }).map((d) => `${'['.repeat(d)}${']'.repeat(d)}`),
            fc.uint8Array({ maxLength: 64 }),
          )
          .map((frame) => ({ kind: 'raw' as const, frame })),
      },
    );
    const cases = fc.sample(messageArb, { numRuns: CASES, seed: SEED });
    const figures = { cases: 0, serverErrors: 0, hangs: 0, closed1011: 0, reopened: 0 };
    const answers: Record<string, number> = {};
    const failures: string[] = [];
    const before = await f.counts();
    let submitted = 0;
    let socket: RawSocket = await openRawSocket(f.url, f.keyA);
    let nextId = 1;
    for (const c of cases) {
      figures.cases++;
      if (socket.socket.readyState !== socket.socket.OPEN) {
        // The server may close a socket after garbage; that is allowed, with a protocol code.
        const code = await socket.closed;
        if (code === 1011) {
          figures.closed1011++;
          failures.push(`closed 1011 after ${JSON.stringify(c).slice(0, 120)}`);
        }
        figures.reopened++;
        socket = await openRawSocket(f.url, f.keyA);
      }
      if (c.kind === 'raw') {
        socket.socket.send(c.frame);
        continue;
      }
      const id = nextId++;
      const message =
        c.kind === 'request'
          ? { id, method: c.method, params: { path: c.path, input: c.input } }
          : { id, method: c.method, params: { path: c.path, input: {} } };
      socket.send(message);
      // A request is answered under its id; an envelope the server cannot read, under id null
      // (or not at all); a socket the server closed answers nothing more.
      const answer = (await Promise.race([
        socket.waitFor(
          (m) => {
            const a = m as Answer;
            const mine = a.id === id || (c.kind === 'envelope' && a.id === null);
            return mine && (a.error !== undefined || a.result !== undefined);
          },
          c.kind === 'envelope' ? 1000 : HANG_MS,
        ),
        socket.closed.then(() => undefined),
      ])) as Answer | undefined;
      if (c.kind === 'request' && c.method === 'subscription') {
        socket.send({ id, method: 'subscription.stop' });
      }
      if (answer === undefined) {
        // An envelope the server cannot read may be answered with id null, or close the socket.
        if (c.kind === 'envelope' || socket.socket.readyState !== socket.socket.OPEN) continue;
        figures.hangs++;
        failures.push(`no answer: ${JSON.stringify(message).slice(0, 160)}`);
        continue;
      }
      const code = answer.error ? (answer.error.data?.code ?? 'error') : 'result';
      answers[`${c.kind}:${code}`] = (answers[`${c.kind}:${code}`] ?? 0) + 1;
      const status = answer.error?.data?.httpStatus ?? 200;
      if (status >= 500 || answer.error?.data?.code === 'INTERNAL_SERVER_ERROR') {
        figures.serverErrors++;
        failures.push(`${status}: ${JSON.stringify(message).slice(0, 160)}`);
      }
      if (c.kind === 'request' && c.path === 'jobs.submit' && !answer.error) submitted++;
    }
    socket.close();
    const after = await f.counts();
    const rowsWritten =
      after.files! -
      before.files! +
      (after.blobs! - before.blobs!) +
      (after.tempFiles! - before.tempFiles!);
    const serverErrorsCounted = f.gateway.metrics.rejects.get('INTERNAL_SERVER_ERROR') ?? 0;
    console.info(
      `ws fuzz [${ctx().dialect}]: ${figures.cases} messages; server errors ${figures.serverErrors}, ` +
        `hangs ${figures.hangs}, 1011 closes ${figures.closed1011}, sockets reopened ${figures.reopened}, ` +
        `server errors in metrics ${serverErrorsCounted}, jobs by accepted submits ${submitted}, ` +
        `rows written by rejected calls ${rowsWritten + Math.max(0, after.jobs! - before.jobs! - submitted)}; ` +
        `answers ${JSON.stringify(answers)}`,
    );
    expect(failures.slice(0, 10)).toEqual([]);
    expect(serverErrorsCounted).toBe(0);
    expect(after.jobs! - before.jobs!).toBeLessThanOrEqual(submitted);
    expect(rowsWritten).toBe(0);
    // The gateway still serves.
    expect((await fetch(`${f.url}/healthz`)).status).toBe(200);
  }, 600_000);

  it(`${CASES} uploads: no 5xx, no hang, a file and a blob only for each 201, names stored inert`, async () => {
    const MAGIC = [
      '', // empty
      '%PDF-1.7\n', // allowed
      '\x89PNG\r\n\x1a\n', // allowed
      '<!DOCTYPE html><script>alert(1)</script>', // a page: refused
      '<svg xmlns="http://www.w3.org/2000/svg"/>', // refused
      'PK\x03\x04', // zip
      '\x7fELF', // executable
    ];
    const uploadArb = fc.record({
      key: fc.constantFrom(f.keyA, f.keyA, f.keyA, f.keyB, 'sk_kaaaaaaaaaaaa_bbbb', ''),
      head: fc.constantFrom(...MAGIC),
      tail: fc.string({ unit: 'binary', maxLength: 300 }),
      contentType: fc.oneof(
        fc.constantFrom(
          'application/pdf',
          'text/html',
          'image/svg+xml',
          'text/plain; charset=utf-8',
          '',
        ),
        fc.string({ maxLength: 80 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
      ),
      // The x-filename header as sent: percent-encoded (as browsers send it), raw Latin-1, or a
      // malformed escape (lone surrogates, cut sequences) the gateway cannot decode.
      filename: fc.option(
        fc.oneof(
          weirdString.map((s) => encodeURIComponent(wellFormed(s)).slice(0, 2000)),
          weirdString.map((s) => s.replace(/[^\x20-\x7e\x80-\xff]/g, '').slice(0, 2000)),
          fc.constantFrom(
            encodeURIComponent('<img src=x onerror=alert(1)>.pdf'),
            '%3Cb%3E.pdf',
            '../../etc/passwd',
            encodeURIComponent('\u202egpj.exe'),
            '%ED%A0%80.pdf',
            '%E0%A4%A',
            '%00.pdf',
          ),
        ),
      ),
    });
    const cases = fc.sample(uploadArb, { numRuns: CASES, seed: SEED });
    const figures = {
      cases: 0,
      status5xx: 0,
      crashes: 0,
      hangs: 0,
      created: 0,
      byStatus: {} as Record<string, number>,
    };
    const failures: string[] = [];
    const before = await f.counts();
    const runCase = async (c: (typeof cases)[number]) => {
      figures.cases++;
      const headers: Record<string, string> = { 'content-type': c.contentType };
      if (c.key) headers.authorization = `Bearer ${c.key}`;
      if (c.filename !== null) headers['x-filename'] = c.filename;
      const body = Buffer.from(c.head + c.tail, 'latin1');
      let timer: NodeJS.Timeout | undefined;
      const hang = new Promise<'hang'>((r) => (timer = setTimeout(() => r('hang'), HANG_MS)));
      try {
        const res = await Promise.race([
          fetch(`${f.url}/v1/uploads`, { method: 'POST', headers, body }),
          hang,
        ]);
        if (res === 'hang') {
          figures.hangs++;
          failures.push('hang');
          return;
        }
        const text = await res.text();
        figures.byStatus[res.status] = (figures.byStatus[res.status] ?? 0) + 1;
        if (res.status >= 500) {
          figures.status5xx++;
          failures.push(`${res.status} ${text.slice(0, 200)}`);
        }
        if (res.status === 201) {
          figures.created++;
          const view = JSON.parse(text) as { filename: string | null };
          // eslint-disable-next-line no-control-regex -- the point is to find control characters
          if (view.filename !== null && /[<>"'`\u0000-\u001f\u202a-\u202e]/.test(view.filename)) {
            failures.push(`stored name not inert: ${JSON.stringify(view.filename)}`);
          }
        }
      } catch (error) {
        figures.crashes++;
        failures.push(`crash: ${String(error)}`);
      } finally {
        clearTimeout(timer);
      }
    };
    for (let i = 0; i < cases.length; i += 8) await Promise.all(cases.slice(i, i + 8).map(runCase));
    const after = await f.counts();
    const extraFiles = after.files! - before.files! - figures.created;
    const extraBlobs = after.blobs! - before.blobs! - figures.created;
    const tempLeft = after.tempFiles! - before.tempFiles!;
    console.info(
      `upload fuzz [${ctx().dialect}]: ${figures.cases} uploads; 5xx ${figures.status5xx}, ` +
        `crashes ${figures.crashes}, hangs ${figures.hangs}, created ${figures.created}, ` +
        `files beyond the 201s ${extraFiles}, blobs beyond the 201s ${extraBlobs}, temp files left ${tempLeft}; ` +
        `statuses ${JSON.stringify(figures.byStatus)}`,
    );
    expect(failures.slice(0, 10)).toEqual([]);
    expect(figures.created).toBeGreaterThan(0); // the valid ones did go through
    expect({ extraFiles, extraBlobs, tempLeft }).toEqual({
      extraFiles: 0,
      extraBlobs: 0,
      tempLeft: 0,
    });
  }, 600_000);
});
