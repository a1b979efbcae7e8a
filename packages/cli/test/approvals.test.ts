// An approval end to end on `sluice dev` (gateway + worker in one process, SQLite file, real
// HTTP): a job starts a child, hands out a token and waits; `sluice jobs get` shows the child;
// the token completes the wait once from a plain POST without an API key (a replay is refused);
// the job resumes and ends with the decision and its child's result. A second job is approved
// with `sluice jobs signal` instead.

import { waitFor } from '@sluice/testkit';
import { expect, it } from 'vitest';
import { EXIT_CODES } from '../src/cli-errors.js';
import { sluiceAgainst, useOpsServer } from './ops-server.js';

const KEY = 'dev_approvals_test_key';
const ops = useOpsServer(KEY);

function sluice(args: string[]) {
  return sluiceAgainst(ops, KEY, args);
}

it('a token approves a waiting job once, without an API key; the job ends with its child', async () => {
  const job = await ops.client.submit('ops.approve', { units: 2 });
  let path: string | undefined;
  for await (const e of job.watch()) {
    if (e.type === 'progress') path = e.data.approvePath;
    if ('to' in e && e.to === 'waiting') break;
  }
  if (!path) throw new Error('no token path');
  expect((await job.status()).state).toBe('waiting');
  const children = await job.children();
  expect(children).toHaveLength(1);
  const got = await sluice(['jobs', 'get', job.id]);
  expect(got.out[1]).toMatch(new RegExp(`^  child\\t${children[0]?.id}\\tops.steps\\t`));
  expect((await sluice(['jobs', 'get', children[0]?.id ?? ''])).out[1]).toBe(`  parent\t${job.id}`);

  const shown = await fetch(`${ops.url}${path}`);
  expect(await shown.json()).toMatchObject({ status: 'open', event: 'approved' });
  const post = () =>
    fetch(`${ops.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ payload: { ok: true, by: 'ann' } }),
    });
  expect((await post()).status).toBe(200);
  expect((await post()).status).toBe(409);
  expect(await job.result()).toEqual({ ok: true, by: 'ann', childCount: 2 });
}, 60_000);

it('sluice jobs signal delivers the event a job waits for', async () => {
  const job = await ops.client.submit('ops.approve', { units: 1 });
  await waitFor(async () => (await job.status()).state === 'waiting', { timeoutMs: 20_000 });
  const refused = await sluice(['jobs', 'signal', job.id, 'approved', '{"ok":"yes"}']);
  expect(refused.code).toBe(EXIT_CODES.refused);
  const sent = await sluice([
    'jobs',
    'signal',
    job.id,
    'approved',
    '{"ok":false,"by":"cli"}',
    '--signal-id',
    'once',
  ]);
  expect(sent).toMatchObject({ code: EXIT_CODES.ok, out: [`${job.id}\tapproved\tdelivered`] });
  expect(await job.result()).toEqual({ ok: false, by: 'cli', childCount: 1 });
}, 60_000);
