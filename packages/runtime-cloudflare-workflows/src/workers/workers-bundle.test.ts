// The Workers gateway half (`@sluice/runtime-cloudflare-workflows/workers`) bundles for workerd
// with nothing from Node — built the way wrangler builds a Worker — and carries none of the Node
// gateway half (the REST dispatcher, the signed callback routes) nor the Node gateway.
import { bundleForWorkerd } from '@sluice/testkit';
import { expect, it } from 'vitest';

const FORBIDDEN =
  /^(node:|pg$|pg\/|pg-|better-sqlite3|iovalkey|pino|prom-client|ws$|@hono\/node-server|fs$|path$|crypto$|os$|http$|https$|net$|child_process$)/;

it('./workers pulls in no Node built-in, no driver and none of the Node gateway half', async () => {
  const b = await bundleForWorkerd(new URL('./index.ts', import.meta.url));
  expect(b.imports.filter((p) => FORBIDDEN.test(p))).toEqual([]);
  expect(b.inputs.some((p) => p.includes('workers/workflows-dispatcher.ts'))).toBe(true);
  expect(b.inputs.filter((p) => p.includes('runtime-cloudflare-workflows/src/gateway/'))).toEqual(
    [],
  );
  expect(b.inputs.filter((p) => /gateway\/src\/(create-gateway|websocket)\.ts/.test(p))).toEqual(
    [],
  );
});
