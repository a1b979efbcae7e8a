// migrations/0001_sluice_schema.sql is the dump of the current migration set: a new migration in
// @sluice/storage without a new dump would deploy an old schema.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { schemaSql } from '../scripts/schema-sql.js';

it('the committed D1 schema is the dump of the current migration set', async () => {
  const committed = readFileSync(
    new URL('../migrations/0001_sluice_schema.sql', import.meta.url),
    'utf8',
  );
  expect(committed, 'stale: run npm run schema -w @sluice/example-cloudflare').toBe(
    await schemaSql(),
  );
});
