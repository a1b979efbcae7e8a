import { expect, test } from 'vitest';
import { unwrapTracked } from './subscribe.js';
import { createTransport, endpoints } from './transport.js';

test('endpoints keep a base path and switch to ws(s) for the socket', () => {
  expect(endpoints('http://localhost:3000')).toEqual({
    base: 'http://localhost:3000',
    trpc: 'http://localhost:3000/trpc',
    upload: 'http://localhost:3000/v1/uploads',
    ws: 'ws://localhost:3000/ws',
  });
  expect(endpoints('https://api.example.com/sluice/').ws).toBe('wss://api.example.com/sluice/ws');
  expect(endpoints('https://api.example.com/sluice/').base).toBe('https://api.example.com/sluice');
  expect(() => endpoints('ftp://x')).toThrow(/http/);
});

test('HTTP-only use works without a WebSocket class; subscriptions say what to pass', async () => {
  const transport = createTransport({ url: 'http://127.0.0.1:1', apiKey: () => 'k' });
  expect(await transport.authorization()).toBe('Bearer k');
  const hasGlobal = typeof (globalThis as { WebSocket?: unknown }).WebSocket === 'function';
  if (!hasGlobal) expect(() => transport.assertWebSocket()).toThrow(/ws/);
  await transport.close();
});

test('tracked envelopes are unwrapped, events pass through', () => {
  const event = { type: 'progress', jobId: 'j', seq: 2, at: 'now', data: { id: 'x' } };
  expect(unwrapTracked({ id: '2', data: event })).toBe(event);
  expect(unwrapTracked(event)).toBe(event);
});
