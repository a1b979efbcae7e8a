import { TRPCClientError } from '@trpc/client';
import { SluiceError } from '@sluice/contracts/wire';
import { describe, expect, test } from 'vitest';
import { isSluiceApiError } from './errors.js';
import { codeForStatus, responseError, toApiError } from './to-api-error.js';

function trpcError(data: unknown): TRPCClientError<never> {
  return new TRPCClientError('boom', {
    result: { error: { code: -1, message: 'boom', data } },
  } as never);
}

describe('toApiError', () => {
  test('maps tRPC codes to Sluice codes', () => {
    expect(toApiError(trpcError({ code: 'NOT_FOUND', httpStatus: 404 })).code).toBe('NOT_FOUND');
    expect(toApiError(trpcError({ code: 'TOO_MANY_REQUESTS' })).code).toBe('RATE_LIMITED');
    expect(toApiError(trpcError({ code: 'INTERNAL_SERVER_ERROR' })).code).toBe('INTERNAL');
    const e = toApiError(trpcError({ code: 'BAD_REQUEST', httpStatus: 400 }));
    expect(e.httpStatus).toBe(400);
    expect(isSluiceApiError(e)).toBe(true);
    expect(e.name).toBe('SluiceApiError');
  });

  test('a Sluice code in the error data wins over the tRPC code', () => {
    expect(toApiError(trpcError({ code: 'BAD_REQUEST', sluiceCode: 'CONFLICT' })).code).toBe(
      'CONFLICT',
    );
  });

  test('no tRPC answer at all means the gateway was unavailable', () => {
    expect(toApiError(new TRPCClientError('WebSocket closed')).code).toBe('UNAVAILABLE');
    expect(toApiError(new TypeError('fetch failed')).code).toBe('UNAVAILABLE');
  });

  test('an SSE subscription refused with an HTTP status takes the status’s code', () => {
    // What httpSubscriptionLink raises when the `eventsource` package sees a 429 answer.
    const refused = Object.assign(new Event('error'), {
      code: 429,
      message: 'Non-200 status code (429)',
    });
    const e = toApiError(
      new TRPCClientError('Non-200 status code (429)', { cause: refused as unknown as Error }),
    );
    expect({ code: e.code, status: e.httpStatus }).toEqual({ code: 'RATE_LIMITED', status: 429 });
    const network = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(toApiError(new TRPCClientError('x', { cause: network })).code).toBe('UNAVAILABLE');
  });

  test('keeps Sluice errors’ codes', () => {
    expect(toApiError(new SluiceError('INVALID_CONFIG', 'x')).code).toBe('INVALID_CONFIG');
  });
});

test('HTTP statuses and JSON error bodies', async () => {
  expect(codeForStatus(413)).toBe('PAYLOAD_TOO_LARGE');
  expect(codeForStatus(418)).toBe('BAD_REQUEST');
  expect(codeForStatus(500)).toBe('INTERNAL');
  const plain = await responseError(new Response('nope', { status: 413 }));
  expect(plain.code).toBe('PAYLOAD_TOO_LARGE');
  const json = await responseError(
    Response.json({ error: { code: 'FORBIDDEN', message: 'not yours' } }, { status: 400 }),
  );
  expect([json.code, json.message, json.httpStatus]).toEqual(['FORBIDDEN', 'not yours', 400]);
});
