// The DBOS prefill copies one client-enqueued workflow instead of enqueueing N through the
// client. The invariant: a copied workflow is indistinguishable from a client-enqueued one, except
// where two client-enqueued workflows differ anyway (their ids, timestamps) and in its own input.
import { createPgDatabase, pgAvailable, type PgDatabase } from '@sluice/testkit';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DBOS_APP,
  DBOS_APP_VERSION,
  DBOS_QUEUE,
  DBOS_SCHEMA,
  DBOS_WORKFLOW,
} from './dbos-config.js';
import { enqueueWorkflows } from './dbos-prefill.js';

type Row = Record<string, unknown>;

/** Columns whose values differ between two rows. */
function differing(a: Row, b: Row): string[] {
  return Object.keys(a).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

describe('DBOS prefill', () => {
  let db: PgDatabase | undefined;
  afterAll(async () => db?.drop());

  it('copies of a client-enqueued workflow differ from client-enqueued ones only where those differ among themselves', async (t) => {
    if (!(await pgAvailable())) return t.skip('PostgreSQL is not reachable');
    db = await createPgDatabase({ prefix: 'sluice_bench_dbos' });
    const { DBOS, DBOSClient } = await import('@dbos-inc/dbos-sdk');
    await DBOS.migrate(db.url, { schemaName: DBOS_SCHEMA });
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    const client = await DBOSClient.create({
      systemDatabaseUrl: db.url,
      systemDatabasePool: pool,
      systemDatabaseSchemaName: DBOS_SCHEMA,
      applicationName: DBOS_APP,
    });
    try {
      const options = {
        queueName: DBOS_QUEUE,
        workflowName: DBOS_WORKFLOW,
        appVersion: DBOS_APP_VERSION,
      };
      const real = [
        (await client.enqueue(options, { i: 7, t: 0 })).workflowID,
        (await client.enqueue(options, { i: 8, t: 0 })).workflowID,
      ];
      await enqueueWorkflows(pool, client, 3); // the template (i = 0) and its copies i = 1, 2
      const status = await pool.query<Row>(
        `SELECT * FROM ${DBOS_SCHEMA}.workflow_status ORDER BY created_at, workflow_uuid`,
      );
      const inputs = await pool.query<{ workflow_uuid: string; inputs: string }>(
        `SELECT workflow_uuid, inputs FROM ${DBOS_SCHEMA}.workflow_input`,
      );
      const byId = new Map(status.rows.map((r) => [r.workflow_uuid as string, r]));
      const inputOf = new Map(inputs.rows.map((r) => [r.workflow_uuid, r.inputs]));
      expect(status.rowCount).toBe(5);
      const realRows = real.map((id) => byId.get(id) as Row);
      const natural = new Set(differing(realRows[0] as Row, realRows[1] as Row));
      const copies = status.rows.filter((r) => !real.includes(r.workflow_uuid as string));
      expect(copies).toHaveLength(3);
      for (const copy of copies)
        for (const column of differing(copy, realRows[0] as Row))
          expect(natural.has(column), `copied ${column}`).toBe(true);
      // Every job has its own id and its own index in the serialized input, as enqueue writes it.
      expect(new Set(copies.map((r) => r.workflow_uuid)).size).toBe(3);
      const indexes = copies.map((r) => inputOf.get(r.workflow_uuid as string)).sort();
      const realInput = (i: number) =>
        (inputOf.get(real[0] as string) as string).replace('{"i":7,', `{"i":${i},`);
      expect(indexes).toEqual([realInput(0), realInput(1), realInput(2)].sort());
    } finally {
      await client.destroy();
      await pool.end();
    }
  });
});
