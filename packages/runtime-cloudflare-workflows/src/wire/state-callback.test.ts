import { describe, expect, it } from 'vitest';
import { signStateReport, STATE_CALLBACK_HEADERS, verifyStateReport } from './state-callback.js';

const SECRET = 'a-shared-secret-of-at-least-32-chars!';

async function check(body: string, signedBody: string, at: number, now: number, secret = SECRET) {
  const h = await signStateReport(secret, signedBody, at);
  return verifyStateReport({
    secret: SECRET,
    body,
    timestamp: h[STATE_CALLBACK_HEADERS.timestamp],
    signature: h[STATE_CALLBACK_HEADERS.signature],
    now,
  });
}

describe('state callback signatures', () => {
  it('accepts the signed bytes within the window, on either side of the clock', async () => {
    expect(await check('{"a":1}', '{"a":1}', 1_000_000, 1_000_000)).toBe('ok');
    expect(await check('{"a":1}', '{"a":1}', 1_000_000, 1_000_000 + 5 * 60_000)).toBe('ok');
    expect(await check('{"a":1}', '{"a":1}', 1_000_000 + 5 * 60_000, 1_000_000)).toBe('ok');
  });

  it('refuses a changed body, another secret, a timestamp past the window, missing headers', async () => {
    expect(await check('{"a":2}', '{"a":1}', 1_000_000, 1_000_000)).toBe('bad_signature');
    expect(await check('{"a":1}', '{"a":1}', 1_000_000, 1_000_000, 'x'.repeat(32))).toBe(
      'bad_signature',
    );
    expect(await check('{"a":1}', '{"a":1}', 1_000_000, 1_000_001 + 5 * 60_000)).toBe('stale');
    expect(
      await verifyStateReport({
        secret: SECRET,
        body: '',
        timestamp: undefined,
        signature: 'v1=00',
        now: 0,
      }),
    ).toBe('missing');
    expect(
      await verifyStateReport({
        secret: SECRET,
        body: '',
        timestamp: '1e3',
        signature: 'v1=00',
        now: 1000,
      }),
    ).toBe('stale');
  });

  it('the timestamp is signed too: moving it breaks the signature', async () => {
    const h = await signStateReport(SECRET, 'b', 1_000_000);
    expect(
      await verifyStateReport({
        secret: SECRET,
        body: 'b',
        timestamp: '1000001',
        signature: h[STATE_CALLBACK_HEADERS.signature],
        now: 1_000_000,
      }),
    ).toBe('bad_signature');
  });
});
