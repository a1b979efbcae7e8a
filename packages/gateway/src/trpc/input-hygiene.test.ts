// Client input never causes a 500: NUL bytes and lone surrogates in idempotency keys, filters,
// cursors, review notes and job input are a 400 with the same answer on SQLite and PostgreSQL
// (PostgreSQL used to answer 500), and JSON nested thousands deep is a 400 before any schema
// recurses into it (it used to overflow the stack). Nothing is written for any of them.

import { defineJob, defineJobs } from '@sluice/contracts';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, testJobs, type GatewayFixture, type TestJobs } from '../testing/fixture.js';
import { httpCall, RawJson } from '../testing/raw-calls.js';
import { z } from 'zod';
import { inputProblem } from './input-hygiene.js';

const openJobs = defineJobs(
  ...Object.values(testJobs),
  defineJob({
    kind: 'demo.open',
    versions: { current: 'v1' },
    input: z.object({ data: z.unknown() }),
    output: z.object({}),
  }),
);

function nested(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { v };
  return v;
}

it('the walk finds NUL, unpaired surrogates and depth, and passes paired surrogates', () => {
  expect(inputProblem({ a: ['x\u0000'] }, 32)).toMatch(/NUL/);
  expect(inputProblem({ a: '\uD800' }, 32)).toMatch(/surrogates/);
  expect(inputProblem({ a: 'x\uDC00y' }, 32)).toMatch(/surrogates/);
  expect(inputProblem({ ['k\u0000']: 1 }, 32)).toMatch(/NUL/);
  expect(inputProblem({ a: '😀 ok' }, 32)).toBeUndefined();
  expect(inputProblem(nested(31), 32)).toBeUndefined();
  expect(inputProblem(nested(33), 32)).toMatch(/deeper than 32/);
  expect(inputProblem(nested(200_000), 32)).toMatch(/deeper/); // no stack overflow in the walk
});

const BAD: [string, 'query' | 'mutation', (jobId: string) => unknown][] = [
  [
    'jobs.submit',
    'mutation',
    () => ({ kind: 'demo.echo', input: { text: 'x' }, idempotencyKey: 'k\u0000' }),
  ],
  [
    'jobs.submit',
    'mutation',
    () => ({ kind: 'demo.echo', input: { text: 'x' }, idempotencyKey: 'k\uD800' }),
  ],
  ['jobs.submit', 'mutation', () => ({ kind: 'demo.echo', input: { text: 'nul\u0000' } })],
  [
    'jobs.submit',
    'mutation',
    () =>
      new RawJson(`{"kind":"demo.open","input":{"data":${'['.repeat(5000)}${']'.repeat(5000)}}}`),
  ],
  ['jobs.list', 'query', () => ({ kind: 'demo\u0000echo' })],
  ['jobs.list', 'query', () => ({ cursor: 'abc\u0000' })],
  ['jobs.list', 'query', () => ({ cursor: '\uDFFF' })],
  ['deadLetters.list', 'query', () => ({ cursor: 'x\u0000' })],
  ['review.approve', 'mutation', (id) => ({ id, note: 'ok\u0000' })],
  ['review.discard', 'mutation', (id) => ({ id, note: '\uD83D' })],
];

const answers: Record<string, string[]> = {};

describeEachDialect('input hygiene', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx(), { jobs: openJobs as unknown as TestJobs });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('answers 400 for unstorable strings and deep nesting, writing nothing', async () => {
    const { id } = await f
      .http(f.keyA)
      .jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'a' } });
    const before = await f.counts();
    const got: string[] = [];
    for (const [path, type, input] of BAD) {
      const a = await httpCall(f.url, path, type, f.keyA, input(id));
      got.push(`${path} ${a.status} ${a.body}`);
    }
    for (const line of got) expect(line).toMatch(/^\S+ 400 .*"sluiceCode":"BAD_REQUEST"/);
    expect(await f.counts()).toEqual(before);
    answers[ctx().dialect] = got;
  });

  it('answers exactly the same on every dialect', () => {
    const all = Object.values(answers);
    for (const a of all) expect(a).toEqual(all[0]);
  });
});
