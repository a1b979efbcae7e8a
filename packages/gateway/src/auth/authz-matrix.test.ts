// The authorization matrix, generated from the router's own procedure list so a new procedure
// cannot be missed: 2 tenants × every scope × key states (valid, expired, revoked, malformed)
// × every procedure × transport (HTTP for queries and mutations; SSE and WebSocket for
// subscriptions). Expected: a valid key is admitted exactly when it holds the procedure's declared
// scope (or `admin`); every other key state is the same 401; and an admitted call of tenant B on
// tenant A's job never shows A's job id.

import { API_KEY_SCOPES, hasScope, type ApiKeyScope } from '@sluice/contracts';
import { createApiKey, revokeApiKey } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type GatewayFixture } from '../testing/fixture.js';
import { httpCall, sseCall, wsCall, type RawAnswer } from '../testing/raw-calls.js';

interface ProcedureInfo {
  path: string;
  type: 'query' | 'mutation' | 'subscription';
  scope: ApiKeyScope | undefined;
}

function proceduresOf(f: GatewayFixture): ProcedureInfo[] {
  const procedures = f.gateway.router._def.procedures as unknown as Record<
    string,
    { _def: { type: ProcedureInfo['type']; meta?: { scope?: ApiKeyScope } } }
  >;
  return Object.entries(procedures)
    .map(([path, p]) => ({ path, type: p._def.type, scope: p._def.meta?.scope }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

/** An input per procedure that reaches tenant A's job where the procedure takes one. */
function sampleInput(path: string, jobId: string): unknown {
  const samples: Record<string, unknown> = {
    'jobs.submit': { kind: 'demo.echo', input: { text: 'matrix' } },
    'jobs.list': {},
    'jobs.watchAll': {},
    'jobs.assetUrl': { id: jobId, name: 'out.txt', expiresInSeconds: 60 },
    'jobs.hold': { id: jobId, hold: true },
    'files.list': {},
    'files.get': { id: 'f_aaaaaaaaaaaaaaaaaaaaaaaaaa' },
    'files.delete': { id: 'f_aaaaaaaaaaaaaaaaaaaaaaaaaa' },
    'files.signedUrl': { id: 'f_aaaaaaaaaaaaaaaaaaaaaaaaaa', expiresInSeconds: 60 },
    'deadLetters.list': {},
    'review.list': {},
    'review.approve': { id: jobId, note: 'matrix' },
    'review.discard': { id: jobId, note: 'matrix' },
    'schedules.create': {
      kind: 'demo.echo',
      input: { text: 'matrix' },
      cron: '0 0 1 1 *',
      paused: true,
    },
    'schedules.list': {},
    'schedules.get': { id: 's_aaaaaaaaaaaaaaaaaaaaaaaaaa' },
    'schedules.pause': { id: 's_aaaaaaaaaaaaaaaaaaaaaaaaaa' },
    'schedules.resume': { id: 's_aaaaaaaaaaaaaaaaaaaaaaaaaa' },
    'schedules.delete': { id: 's_aaaaaaaaaaaaaaaaaaaaaaaaaa' },
  };
  return path in samples ? samples[path] : { id: jobId };
}

type KeyState = ApiKeyScope | 'expired' | 'revoked' | 'malformed';
const STATES: KeyState[] = [...API_KEY_SCOPES, 'expired', 'revoked', 'malformed'];
const TENANTS = ['acme', 'globex'] as const;

function expected(state: KeyState, scope: ApiKeyScope): string {
  if (state === 'expired' || state === 'revoked' || state === 'malformed') return 'UNAUTHORIZED';
  return hasScope([state], scope) ? 'ADMITTED' : 'FORBIDDEN';
}

describeEachDialect('authz matrix', (ctx) => {
  let f: GatewayFixture;
  const keys = new Map<string, string>();
  let jobA: string;

  beforeAll(async () => {
    // Admission failures are the point here; throttling them is tested on its own.
    f = await startGateway(ctx(), {
      limits: {
        failedAuthPerAddress: { perSecond: 1000, burst: 100_000 },
        failedAuthPerSecret: { perSecond: 1000, burst: 100_000 },
      },
    });
    const db = ctx().database.db;
    for (const tenant of TENANTS) {
      for (const scope of API_KEY_SCOPES) {
        keys.set(`${tenant}/${scope}`, (await createApiKey(db, tenant, { scopes: [scope] })).key);
      }
      const expired = await createApiKey(db, tenant, {
        scopes: ['admin'],
        expiresAt: new Date(Date.now() - 1000),
      });
      keys.set(`${tenant}/expired`, expired.key);
      const revoked = await createApiKey(db, tenant, { scopes: ['admin'] });
      await revokeApiKey(db, revoked.id);
      keys.set(`${tenant}/revoked`, revoked.key);
      keys.set(`${tenant}/malformed`, `sk_${tenant}_not-a-key`);
    }
    jobA = (await f.http(f.keyA).jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'a' } }))
      .id;
  });
  afterAll(async () => {
    await f?.close();
  });

  it('every procedure declares a scope (a new procedure without one is callable by nobody)', () => {
    const procedures = proceduresOf(f);
    expect(procedures.length).toBeGreaterThanOrEqual(18);
    expect(procedures.filter((p) => p.scope === undefined).map((p) => p.path)).toEqual([]);
  });

  it('admits a key exactly when it holds the declared scope, on every procedure and transport', async () => {
    const mismatches: string[] = [];
    let calls = 0;
    for (const proc of proceduresOf(f)) {
      const scope = proc.scope as ApiKeyScope;
      const transports: [string, (key: string) => Promise<RawAnswer>][] =
        proc.type === 'subscription'
          ? [
              ['sse', (k) => sseCall(f.url, proc.path, k, sampleInput(proc.path, jobA))],
              ['ws', (k) => wsCall(f.url, proc.path, k, sampleInput(proc.path, jobA))],
            ]
          : [
              [
                'http',
                (k) =>
                  httpCall(f.url, proc.path, proc.type as 'query', k, sampleInput(proc.path, jobA)),
              ],
            ];
      for (const [transport, call] of transports) {
        await Promise.all(
          TENANTS.flatMap((tenant) =>
            STATES.map(async (state) => {
              const answer = await call(keys.get(`${tenant}/${state}`)!);
              calls++;
              const want = expected(state, scope);
              const cell = `${proc.path} ${transport} ${tenant}/${state}`;
              if (answer.outcome !== want) {
                mismatches.push(
                  `${cell}: ${answer.outcome}, want ${want} (${answer.body.slice(0, 200)})`,
                );
              }
              if (tenant === 'globex' && answer.body.includes(jobA)) {
                mismatches.push(`${cell}: shows tenant acme's job`);
              }
            }),
          ),
        );
      }
    }
    expect(mismatches).toEqual([]);
    // 16 queries/mutations + 2 subscriptions × 2 transports, each × 2 tenants × 8 key states
    expect(calls).toBeGreaterThanOrEqual(20 * 16);
  }, 60_000);
});
