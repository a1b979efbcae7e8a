// The Workers gateway's cron trigger schedules run recovery by what the runtime's dispatcher has
// (`runs`: its runs can be asked about), never by the runtime's name, and not when turned off.
// Real passes over a real job database: a quiet queued job whose run is gone is what recovery
// would act on; every statement the passes send is recorded, so a recovery pass that was
// scheduled shows (its lock) even when it had nothing to do.
import type { RunInspector } from '@sluice/contracts';
import { migrate, openDatabase, type SluiceDatabase } from '@sluice/storage';
import { queuedTestJob } from '@sluice/storage/testing';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { resolveRetention } from '../retention/run-retention-pass.js';
import { PUSH_RUNTIME_CAPABILITIES } from '../testing/capabilities.js';
import type { GatewayDispatcher } from '../wire/gateway-dispatcher.js';
import { startCronPasses, type CronSettings } from './cron.js';
import { RUN_RECOVERY_LOCK } from './run-recovery-pass.js';

const base = openDatabase({ url: ':memory:' });
beforeAll(() => migrate(base));
afterAll(() => base.close());

/** The database, with every statement sent through `db` recorded (as its query tree). */
function recording(): { database: SluiceDatabase; statements: string[] } {
  const statements: string[] = [];
  const db = base.db.withPlugin({
    transformQuery: (args) => {
      statements.push(JSON.stringify(args.node));
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  return { database: Object.create(base, { db: { value: db } }) as SluiceDatabase, statements };
}

/** A push dispatcher; with `runs`, every run it is asked about is gone (`not_found`). */
function dispatcher(name: string, withRuns: boolean) {
  const asked: string[] = [];
  const created: string[] = [];
  const runs: RunInspector = {
    async inspect(jobs) {
      for (const j of jobs) asked.push(j.id);
      return new Map(jobs.map((j) => [j.id, 'not_found' as const]));
    },
    restart: async () => {},
  };
  const d: GatewayDispatcher = {
    name,
    capabilities: PUSH_RUNTIME_CAPABILITIES,
    async dispatch(pointers) {
      for (const p of pointers) created.push(p.jobId);
    },
    ...(withRuns ? { runs } : {}),
    close: async () => {},
  };
  return { d, asked, created };
}

const settings = (recovery: CronSettings['recovery'] = { quietMs: 0 }): CronSettings => ({
  recovery,
  retention: resolveRetention({}, undefined),
});

async function cron(d: GatewayDispatcher, s: CronSettings) {
  const { database, statements } = recording();
  const errors: string[] = [];
  await Promise.all(
    startCronPasses({ dispatcher: d, database }, s, (what) => () => errors.push(what)),
  );
  expect(errors).toEqual([]);
  return statements.filter((q) => q.includes(`"${RUN_RECOVERY_LOCK}"`)).length;
}

let job: string;
beforeEach(async () => {
  await base.db.deleteFrom('jobs').execute();
  job = await queuedTestJob(base, 'demo.echo');
  // quiet for longer than `quietMs: 0`
  await new Promise((r) => setTimeout(r, 5));
});

it('a runtime with `runs`, whatever its name, gets its lost runs recovered', async () => {
  const r = dispatcher('some-push-runtime', true);
  expect(await cron(r.d, settings())).toBeGreaterThan(0);
  expect(r.asked).toEqual([job]);
  expect(r.created).toEqual([job]);
});

it('a runtime without `runs` gets no run recovery scheduled, even under a known push runtime name', async () => {
  const r = dispatcher('cloudflare-workflows', false);
  expect(await cron(r.d, settings())).toBe(0);
  expect(r.created).toEqual([]);
});

it('`recovery: false` schedules none for a runtime with `runs`', async () => {
  const r = dispatcher('cloudflare-workflows', true);
  expect(await cron(r.d, settings(false))).toBe(0);
  expect(r.asked).toEqual([]);
});
