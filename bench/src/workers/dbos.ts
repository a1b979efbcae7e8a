// DBOS Transact child. DBOS is one executor per process (a static singleton), so every run
// registers its workflow afresh, launches, and shuts down with `deregister` at its close. The
// workflow's first line waits for `go` (DBOS dispatches from launch on: the first poll may start
// up to c prefilled workflows before the clock, and they wait there), then the harness hook, then
// one no-op step (`DBOS.runStep`: a row in operation_outputs, DBOS's durable step). A workflow is
// reported when its function returns; the parent's settle step waits for its SUCCESS row. The
// producer enqueues one workflow per `DBOSClient.enqueue`.
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';
import type { CreateConsumer, CreateProducer, JobPayload } from '../adapter.js';
import {
  DBOS_APP,
  DBOS_APP_VERSION,
  DBOS_POOL_SIZE,
  DBOS_QUEUE,
  DBOS_SCHEMA,
  DBOS_WORKFLOW,
  parseDbosConfig,
} from '../durable/dbos-config.js';

async function noop(): Promise<number> {
  return 1;
}

export const createConsumer: CreateConsumer = async (init, hooks) => {
  const cfg = parseDbosConfig(init.config);
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  DBOS.registerWorkflow(
    async (job: JobPayload) => {
      await gate;
      await hooks.handle(job);
      await DBOS.runStep(noop, { name: 'noop' });
      hooks.completed(1);
      return job.i;
    },
    { name: DBOS_WORKFLOW },
  );
  DBOS.setConfig({
    name: DBOS_APP,
    applicationVersion: DBOS_APP_VERSION,
    executorID: `bench-${init.index}`,
    systemDatabaseUrl: cfg.url,
    systemDatabaseSchemaName: DBOS_SCHEMA,
    systemDatabasePoolSize: DBOS_POOL_SIZE,
    runMigrations: false,
    logLevel: 'warn',
  });
  await DBOS.launch();
  return {
    start: () => open(),
    // In-flight workflows (a capped run leaves some) may finish before the pool closes.
    close: () => DBOS.shutdown({ deregister: true, workflowCompletionTimeoutMS: 5_000 }),
  };
};

export const createProducer: CreateProducer = async (init) => {
  const cfg = parseDbosConfig(init.config);
  const client = await DBOSClient.create({
    systemDatabaseUrl: cfg.url,
    systemDatabaseSchemaName: DBOS_SCHEMA,
    applicationName: DBOS_APP,
  });
  return {
    add: async (job) => {
      await client.enqueue(
        { queueName: DBOS_QUEUE, workflowName: DBOS_WORKFLOW, appVersion: DBOS_APP_VERSION },
        job,
      );
    },
    close: () => client.destroy(),
  };
};
