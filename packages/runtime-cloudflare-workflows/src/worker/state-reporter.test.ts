// The Worker's state reporter against a real HTTP server that checks signatures the way the
// gateway does (`wire/state-callback.ts` `verifyStateReport`): signed reports arrive intact, the gateway's
// answers map to 'applied' / 'fenced' / typed errors.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { STATE_CALLBACK_PATH, verifyStateReport, type StateReport } from '../wire/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createStateReporter } from './state-reporter.js';

const SECRET = 'a-shared-secret-of-at-least-32-chars!';
const seen: { path: string; check: string; body: unknown }[] = [];
let answer = 200;
let url = '';
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    void (async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const check = await verifyStateReport({
        secret: SECRET,
        body,
        timestamp: req.headers['x-sluice-timestamp'] as string | undefined,
        signature: req.headers['x-sluice-signature'] as string | undefined,
        now: Date.now(),
      });
      seen.push({ path: req.url ?? '', check, body: JSON.parse(body) });
      res.writeHead(check === 'ok' ? answer : 401, { 'content-type': 'application/json' });
      res.end('{}');
    })();
  });
});

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const report: StateReport = {
  id: 'v1-abc',
  tenantId: 'acme',
  kind: 'demo.echo',
  fence: { epoch: 0, lastSeq: 2, state: 'queued' },
  state: 'running',
  epoch: 1,
  attempts: 1,
  attemptId: 'abc_a1',
  leaseUntil: null,
  leaseOwner: 'workflow-v1',
  events: [
    {
      jobId: 'v1-abc',
      seq: 3,
      at: '2026-12-01T00:00:00.000Z',
      type: 'state',
      from: 'queued',
      to: 'running',
    },
  ],
};

it('a report arrives signed (the gateway verifies it) and intact', async () => {
  answer = 200;
  expect(await createStateReporter({ gatewayUrl: url, secret: SECRET }).report(report)).toBe(
    'applied',
  );
  expect(seen.at(-1)).toEqual({ path: STATE_CALLBACK_PATH, check: 'ok', body: report });
});

it("the gateway's answers: 409 → fenced, 401 → UNAUTHORIZED, 5xx → UNAVAILABLE (retry the step)", async () => {
  answer = 409;
  const reporter = createStateReporter({ gatewayUrl: url, secret: SECRET });
  expect(await reporter.report(report)).toBe('fenced');
  const wrong = createStateReporter({
    gatewayUrl: url,
    secret: 'another-secret-of-32-characters!!!',
  });
  await expect(wrong.report(report)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  expect(seen.at(-1)?.check).toBe('bad_signature');
  answer = 503;
  await expect(reporter.report(report)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
});

it('an invalid report is refused before it is sent', async () => {
  const n = seen.length;
  const reporter = createStateReporter({ gatewayUrl: url, secret: SECRET });
  await expect(reporter.report({ ...report, state: 'bogus' } as never)).rejects.toThrow();
  expect(seen.length).toBe(n);
});
