// DBOS's prefill: N enqueued workflows, as DBOSClient.enqueue leaves them. Enqueueing through the
// client costs several statements and one commit per workflow (~150 per second on this loaded
// machine: minutes for a 20,000-job drain), so ONE workflow is enqueued through DBOS's own client
// and its rows (the ENQUEUED status row, the input row) are copied N − 1 times in SQL: every
// column as DBOS wrote it except the workflow id (a new UUID, as enqueue generates) and the job's
// index inside the serialized input. Untimed, like every prefill.
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import type pg from 'pg';
import { DBOS_APP_VERSION, DBOS_QUEUE, DBOS_SCHEMA, DBOS_WORKFLOW } from './dbos-config.js';

/** The template's input is `{ i: 0, t: 0 }`; its serialization holds this once. */
const INDEX_MARKER = '{"i":0,';

async function columns(pool: pg.Pool, table: string): Promise<string[]> {
  const result = await pool.query<{ name: string }>(
    `SELECT quote_ident(column_name) AS name FROM information_schema.columns
     WHERE table_schema = $1 AND table_name = $2 AND is_generated = 'NEVER'
     ORDER BY ordinal_position`,
    [DBOS_SCHEMA, table],
  );
  return result.rows.map((r) => r.name);
}

/** `t.col` for every column, with the id (and for the input row, the input) replaced. */
function copyList(names: readonly string[], input: boolean): string {
  return names
    .map((name) => {
      if (name === 'workflow_uuid') return 'g.id';
      if (input && name === 'inputs') return `replace(t.inputs, $2, '{"i":' || g.k || ',')`;
      return `t.${name}`;
    })
    .join(', ');
}

export async function enqueueWorkflows(
  pool: pg.Pool,
  client: DBOSClient,
  jobs: number,
): Promise<void> {
  if (jobs === 0) return;
  const handle = await client.enqueue(
    { queueName: DBOS_QUEUE, workflowName: DBOS_WORKFLOW, appVersion: DBOS_APP_VERSION },
    { i: 0, t: 0 },
  );
  const template = handle.workflowID;
  const input = await pool.query<{ inputs: string | null }>(
    `SELECT inputs FROM ${DBOS_SCHEMA}.workflow_input WHERE workflow_uuid = $1`,
    [template],
  );
  if (!input.rows[0]?.inputs?.includes(INDEX_MARKER))
    throw new Error(`DBOS input row of ${template} does not hold ${INDEX_MARKER}`);
  const status = await columns(pool, 'workflow_status');
  const inputs = await columns(pool, 'workflow_input');
  await pool.query(
    `WITH g AS (SELECT k, gen_random_uuid()::text AS id FROM generate_series(1, $3::int - 1) AS k),
     s AS (
       INSERT INTO ${DBOS_SCHEMA}.workflow_status (${status.join(', ')})
       SELECT ${copyList(status, false)} FROM ${DBOS_SCHEMA}.workflow_status t CROSS JOIN g
       WHERE t.workflow_uuid = $1 RETURNING 1
     )
     INSERT INTO ${DBOS_SCHEMA}.workflow_input (${inputs.join(', ')})
     SELECT ${copyList(inputs, true)} FROM ${DBOS_SCHEMA}.workflow_input t CROSS JOIN g
     WHERE t.workflow_uuid = $1`,
    [template, INDEX_MARKER, jobs],
  );
}
