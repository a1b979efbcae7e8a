import { expect, test } from 'vitest';
import { waitFor } from './wait-for.js';

test('waitFor returns the first truthy value, treating throws as not yet', async () => {
  let calls = 0;
  const value = await waitFor(
    () => {
      calls++;
      if (calls < 2) throw new Error('not yet');
      return calls >= 3 ? { calls } : null;
    },
    { intervalMs: 5 },
  );
  expect(value).toEqual({ calls: 3 });
});

test('waitFor times out with the message and the last error as cause', async () => {
  const error = await waitFor(() => Promise.reject(new Error('still down')), {
    timeoutMs: 100,
    intervalMs: 10,
    message: 'gateway ready',
  }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).message).toBe('waitFor: gateway ready not met within 100 ms');
  expect(((error as Error).cause as Error).message).toBe('still down');
});
