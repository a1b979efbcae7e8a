// Slow clients are cut in seconds, not Node's default 5 minutes: headers that never finish and
// a tRPC body that drips are both answered 408 and closed near their deadline.

import { connect } from 'node:net';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serve, type RunningGateway } from '../serve.js';
import { startGateway, type GatewayFixture } from '../testing/fixture.js';

/** Writes `head` to a raw socket, then only a byte a second; resolves when the server closes. */
function dripClient(port: number, head: string): Promise<{ ms: number; answer: string }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let answer = '';
    const drip = setInterval(() => socket.write('a'), 1000);
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('close', () => {
      clearInterval(drip);
      resolve({ ms: Date.now() - started, answer });
    });
    socket.on('error', (e) => {
      clearInterval(drip);
      if (
        (e as NodeJS.ErrnoException).code === 'ECONNRESET' ||
        (e as NodeJS.ErrnoException).code === 'EPIPE'
      )
        return;
      reject(e);
    });
  });
}

describeEachDialect('slow clients', (ctx) => {
  let f: GatewayFixture;
  let tight: RunningGateway;
  beforeAll(async () => {
    f = await startGateway(ctx());
    // A second listener on the same gateway with tight deadlines.
    tight = await serve(f.gateway, { port: 0, headersTimeoutMs: 1000, requestTimeoutMs: 2000 });
  });
  afterAll(async () => {
    await tight?.server.close();
    tight?.server.closeAllConnections();
    await f?.close();
  });

  it('headers that never finish are cut near the headers timeout', async () => {
    const r = await dripClient(tight.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    expect(r.ms).toBeLessThan(4000);
    expect(r.answer).toMatch(/^HTTP\/1.1 408/);
  });

  it('a dripping request body is cut near the request timeout', async () => {
    const r = await dripClient(
      tight.port,
      `POST /trpc/jobs.submit HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${f.keyA}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
    );
    expect(r.ms).toBeLessThan(5000);
    expect(r.ms).toBeGreaterThanOrEqual(1500);
  });

  it('the defaults are seconds, not Node’s five minutes', () => {
    expect(f.server.server.headersTimeout).toBe(10_000);
    expect(f.server.server.requestTimeout).toBe(60_000);
  });
});
