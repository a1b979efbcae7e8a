// The workerd twin of assetKey must build exactly the same key, and refuse exactly the same
// inputs: an asset written by a Node worker and looked up by a Workflow (or the other way round)
// must land on one key.
import { test } from '@fast-check/vitest';
import fc from 'fast-check';
import { formatJobId } from '@sluice/contracts';
import { expect } from 'vitest';
import { assetKeyWeb } from './asset-key-web.js';
import { assetKey } from './blob-keys.js';

const outcome = async (f: () => string | Promise<string>) => {
  try {
    return { key: await f() };
  } catch (error) {
    return { code: (error as { code?: string }).code };
  }
};

test.prop(
  [
    fc.oneof(fc.constant('acme'), fc.string({ maxLength: 20 })),
    fc.oneof(fc.constant(formatJobId('v1')), fc.string({ maxLength: 40 })),
    fc.string({ maxLength: 200 }),
    fc.oneof(fc.constantFrom('out.mp4', 'a', '../x', ''), fc.string({ maxLength: 120 })),
  ],
  { numRuns: 2000 },
)('assetKeyWeb equals assetKey for any input (or both refuse it)', async (t, j, unit, name) => {
  const [node, web] = [
    await outcome(() => assetKey(t, j, unit, name)),
    await outcome(() => assetKeyWeb(t, j, unit, name)),
  ];
  expect(web).toEqual(node);
});
