// Catches a secret shown to an operator: a kind's `redact` paths read "[redacted]" in
// `jobs.detail` (input and output, nested paths, an admin's cross-tenant read too), `jobs.get`
// carries no input at all, while the stored row and the input a worker claims keep the real
// values; a path the schemas do not declare is refused when the kind is defined.
import { defineJob, defineJobs, REDACTED } from '@sluice/contracts';
import { claimJobs, getJobById } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { succeedJob } from '../testing/drive.js';
import { startGateway, testJobs, type GatewayFixture, type TestJobs } from '../testing/fixture.js';

const secret = defineJob({
  kind: 'demo.secret',
  versions: { current: 'v1' },
  input: z.object({ text: z.string(), apiKey: z.string(), auth: z.object({ token: z.string() }) }),
  output: z.object({ text: z.string(), token: z.string().optional() }),
  redact: ['input.apiKey', 'input.auth.token', 'output.token'],
});
// The fixture's client is typed for its own kinds; this suite adds one.
const jobs = { ...testJobs, ...defineJobs(secret) } as unknown as TestJobs;
const input = { text: 'hello', apiKey: 'sk-live-123', auth: { token: 'tok-456' } };

describeEachDialect('redacted fields', (ctx) => {
  let f: GatewayFixture;
  let id: string;
  beforeAll(async () => {
    f = await startGateway(ctx(), { jobs });
    const submit = f.http(f.keyA).jobs.submit.mutate as (i: unknown) => Promise<{ id: string }>;
    id = (await submit({ kind: 'demo.secret', input })).id;
  });
  afterAll(async () => {
    await f.close();
  });

  it('detail shows [redacted] at the paths; the row and the claimed input keep the real values', async () => {
    const { database } = ctx();
    const [claimed] = await claimJobs(database, {
      versions: [{ kind: 'demo.secret', version: 'v1' }],
      owner: 'w-redact',
      leaseMs: 5000,
      limit: 1,
    });
    // What the worker's handler is given is the claimed row's input.
    expect(claimed?.job.input).toEqual(input);
    await succeedJob(database, id, claimed?.job.epoch ?? 0, { text: 'out', token: 'out-789' });

    const d = await f.http(f.keyA).jobs.detail.query({ id });
    expect(d.job.input).toEqual({ text: 'hello', apiKey: REDACTED, auth: { token: REDACTED } });
    expect(d.job.output).toEqual({ text: 'out', token: REDACTED });
    const admin = await f.http(f.adminKey).jobs.detail.query({ id, tenant: 'acme' });
    expect(admin.job.input).toMatchObject({ apiKey: REDACTED });
    expect(JSON.stringify(d)).not.toMatch(/sk-live-123|tok-456|out-789/);

    const view = await f.http(f.keyA).jobs.get.query({ id });
    expect(view).not.toHaveProperty('input');
    expect(view).not.toHaveProperty('output');
    const row = await getJobById(database.db, id);
    expect(row?.input).toEqual(input);
    expect(row?.output).toEqual({ text: 'out', token: 'out-789' });
  });
});

it('a redact path the schemas do not declare is refused at definition, naming the field', () => {
  const base = {
    kind: 'demo.bad',
    versions: { current: 'v1' },
    input: z.object({ apiKey: z.string(), n: z.number() }),
    output: z.unknown(),
  } as const;
  const refused = (redact: string[]) => {
    try {
      defineJob({ ...base, redact });
    } catch (error) {
      return error as { code: string; details?: { field?: string } };
    }
    throw new Error(`redact ${JSON.stringify(redact)} was accepted`);
  };
  expect(refused(['input.apiKye'])).toMatchObject({
    code: 'INVALID_CONFIG',
    details: { field: 'redact.0' },
  });
  expect(refused(['input.apiKey', 'apiKey']).details?.field).toBe('redact.1');
  expect(refused(['input.n.x']).code).toBe('INVALID_CONFIG');
  expect(refused(['input.']).code).toBe('INVALID_CONFIG');
  // An output of unknown shape cannot be checked: any field under it is allowed.
  expect(defineJob({ ...base, redact: ['output.secret'] }).redact).toEqual([
    { side: 'output', keys: ['secret'] },
  ]);
});
