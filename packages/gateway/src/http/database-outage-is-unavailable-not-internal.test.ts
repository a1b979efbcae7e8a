// A job database that cannot answer (connections refused or dropped) is a retryable
// UNAVAILABLE (503) to the caller, not an internal error: a client, a load balancer or an
// operator's alert must be able to tell "try again" from "a bug". Real PostgreSQL behind the
// testkit's TCP fault proxy, closed mid-run; the rows are counted on a direct connection.
import { openDatabase, type SluiceDatabase } from '@sluice/storage';
import { createTestDatabase, type TestDatabase } from '@sluice/storage/testing';
import { faultProxy, type FaultProxy } from '@sluice/testkit';
import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type GatewayFixture } from '../testing/fixture.js';
import { toTRPCError } from '../trpc/errors.js';

let direct: TestDatabase;
let proxy: FaultProxy;
let proxied: SluiceDatabase;
let f: GatewayFixture;

beforeAll(async () => {
  direct = await createTestDatabase('postgres');
  const url = new URL(direct.url);
  proxy = await faultProxy({ host: url.hostname, port: Number(url.port || 5432) });
  url.host = `127.0.0.1:${proxy.port}`;
  proxied = openDatabase({ url: url.toString() });
  f = await startGateway({ ...direct, url: url.toString(), database: proxied });
}, 60_000);
afterAll(async () => {
  await f?.close().catch(() => {});
  await proxied?.close().catch(() => {});
  await proxy?.close();
  await direct?.dispose();
});

const jobCount = async () =>
  Number(
    (
      await direct.database.db
        .selectFrom('jobs')
        .select((e) => e.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

it('a submit while the job database refuses connections is UNAVAILABLE (503) and writes nothing', async () => {
  const client = f.http(f.keyA);
  await client.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'before' } });
  expect(await jobCount()).toBe(1);

  await proxy.close();
  const error = await client.jobs.submit
    .mutate({ kind: 'demo.echo', input: { text: 'during' } })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(TRPCClientError);
  expect((error as TRPCClientError<never>).data).toMatchObject({
    code: 'SERVICE_UNAVAILABLE',
    httpStatus: 503,
    sluiceCode: 'UNAVAILABLE',
  });
  expect((error as Error).message).toMatch(/job database is unavailable/);
  expect(await jobCount()).toBe(1);
}, 30_000);

it('any other error stays internal, its message hidden', () => {
  const unavailable = direct.database.dialect.isUnavailable;
  const bug = toTRPCError(new TypeError('x is undefined'), unavailable);
  expect(bug.code).toBe('INTERNAL_SERVER_ERROR');
  const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  expect(toTRPCError(refused, unavailable).code).toBe('SERVICE_UNAVAILABLE');
  expect(toTRPCError(refused).code).toBe('INTERNAL_SERVER_ERROR');
});
