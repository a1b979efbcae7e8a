// Table names for kysely's Migrator on D1. Kysely's SQLite introspector reads every table's
// `pragma_table_info`, including D1's own `_cf_*` tables, which D1 refuses (SQLITE_AUTH). The
// Migrator only asks whether its tables exist, so this answers names without columns and leaves
// D1's tables out.
import {
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadataOptions,
  type Kysely,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';
import { DEFAULT_MIGRATION_LOCK_TABLE, DEFAULT_MIGRATION_TABLE } from 'kysely/migration';

export class D1Introspector implements DatabaseIntrospector {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- introspection sees any schema
  constructor(private readonly db: Kysely<any>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    return [];
  }

  async getTables(
    options: DatabaseMetadataOptions = { withInternalKyselyTables: false },
  ): Promise<TableMetadata[]> {
    const internal = [DEFAULT_MIGRATION_TABLE, DEFAULT_MIGRATION_LOCK_TABLE];
    const rows = await sql<{ name: string; type: string }>`select name, type from sqlite_master
      where type in ('table', 'view') and name not like 'sqlite_%' and name not like '\\_cf\\_%' escape '\\'
      order by name`.execute(this.db);
    return rows.rows
      .filter((r) => options.withInternalKyselyTables || !internal.includes(r.name))
      .map((r) => ({ name: r.name, isView: r.type === 'view', isForeign: false, columns: [] }));
  }
}
