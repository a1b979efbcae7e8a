// The operator's search over jobs: any mix of kind, version, states, tenant, tags, metadata,
// time ranges and error text, newest first with an opaque cursor. A search by a tag (or a
// metadata key and value) of one tenant is driven by that index table: `job_tags` and `job_meta`
// carry the tenant and the creation time, so the page is ONE backward range of
// (tenant, tag, created_at, job_id) that stops at the page size, each row joined to `jobs` by its
// key; the other filters are checked on the joined rows. Without one, `jobs_tenant_created`
// drives. Error text is not indexed: it filters the rows the rest of the search reads.

import type { JobState } from '@sluice/contracts';
import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import type { Db } from '../database.js';
import type { Database } from '../schema.js';
import { decodeJobCursor, encodeJobCursor } from './job-cursor.js';
import { toJobRow, type JobRow } from './job-row.js';

export interface JobSearch {
  /** One tenant, or null for every tenant (an admin's search). */
  tenantId: string | null;
  kind?: string | undefined;
  version?: string | undefined;
  states?: readonly JobState[] | undefined;
  /** The job has every one of these tags. */
  tags?: readonly string[] | undefined;
  /** The job has each key (and, with `value`, that value's text). */
  metadata?: readonly { key: string; value?: string | undefined }[] | undefined;
  /** ISO UTC bounds, inclusive after, exclusive before. */
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
  finishedAfter?: string | undefined;
  finishedBefore?: string | undefined;
  errorText?: string | undefined;
  /** Jobs created at or before this instant only (a bulk operation's fixed set). */
  until?: string | undefined;
}

type SearchDb = Database & { j: Database['jobs']; d: { created_at: string; job_id: string } };
type Q = SelectQueryBuilder<SearchDb, 'j' | 'd', object>;
type J = ExpressionBuilder<SearchDb, 'j'>;

const likeText = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The `where` of every filter but the driver's, on `jobs as j`. */
function filtered(q0: Q, f: JobSearch, skip: { tag?: string; meta?: number }): Q {
  let q = q0;
  if (f.tenantId !== null) q = q.where('j.tenant_id', '=', f.tenantId);
  if (f.kind) q = q.where('j.kind', '=', f.kind);
  if (f.version) q = q.where('j.version', '=', f.version);
  if (f.states?.length) q = q.where('j.state', 'in', [...f.states]);
  if (f.createdAfter) q = q.where('j.created_at', '>=', f.createdAfter);
  if (f.createdBefore) q = q.where('j.created_at', '<', f.createdBefore);
  if (f.until) q = q.where('j.created_at', '<=', f.until);
  if (f.finishedAfter) q = q.where('j.finished_at', '>=', f.finishedAfter);
  if (f.finishedBefore) q = q.where('j.finished_at', '<', f.finishedBefore);
  for (const tag of f.tags ?? []) {
    if (tag === skip.tag) continue;
    q = q.where((eb: J) =>
      eb.exists(
        eb
          .selectFrom('job_tags as t')
          .select(sql.lit(1).as('one'))
          .whereRef('t.job_id', '=', 'j.id')
          .where('t.tag', '=', tag),
      ),
    );
  }
  (f.metadata ?? []).forEach((m, i) => {
    if (i === skip.meta) return;
    q = q.where((eb: J) => {
      let sub = eb
        .selectFrom('job_meta as m')
        .select(sql.lit(1).as('one'))
        .whereRef('m.job_id', '=', 'j.id')
        .where('m.key', '=', m.key);
      if (m.value !== undefined) sub = sub.where('m.value', '=', m.value);
      return eb.exists(sub);
    });
  });
  if (f.errorText) {
    const text = likeText(f.errorText);
    q = q.where(
      sql<boolean>`lower(coalesce(cast(j.error as text), '') || ' ' || coalesce(j.reason, '')) like ${text} escape '\\'`,
    );
  }
  return q;
}

/** The search as a query of `jobs as j` (+ the driving index table as `d`), ordered newest first. */
function searchQuery(db: Db, f: JobSearch, after: { createdAt: string; id: string } | undefined) {
  const tag = f.tenantId !== null ? f.tags?.[0] : undefined;
  const metaIndex =
    f.tenantId !== null && tag === undefined
      ? (f.metadata ?? []).findIndex((m) => m.value !== undefined)
      : -1;
  const meta = metaIndex >= 0 ? f.metadata?.[metaIndex] : undefined;
  let q: Q;
  let created = sql.ref('d.created_at');
  let id = sql.ref('d.job_id');
  if (tag !== undefined) {
    q = db
      .selectFrom('job_tags as d')
      .innerJoin('jobs as j', 'j.id', 'd.job_id')
      .where('d.tenant_id', '=', f.tenantId as string)
      .where('d.tag', '=', tag) as unknown as Q;
  } else if (meta !== undefined) {
    q = db
      .selectFrom('job_meta as d')
      .innerJoin('jobs as j', 'j.id', 'd.job_id')
      .where('d.tenant_id', '=', f.tenantId as string)
      .where('d.key', '=', meta.key)
      .where('d.value', '=', meta.value as string) as unknown as Q;
  } else {
    q = db.selectFrom('jobs as j') as unknown as Q;
    created = sql.ref('j.created_at');
    id = sql.ref('j.id');
  }
  q = filtered(q, f, {
    ...(tag !== undefined ? { tag } : {}),
    ...(meta ? { meta: metaIndex } : {}),
  });
  if (after) {
    q = q.where((eb) =>
      eb.or([
        eb(created, '<', after.createdAt),
        eb.and([eb(created, '=', after.createdAt), eb(id, '<', after.id)]),
      ]),
    );
  }
  return q.orderBy(created, 'desc').orderBy(id, 'desc');
}

/** One page, newest first. An unreadable cursor starts from the top rather than failing. */
export async function searchJobs(
  db: Db,
  f: JobSearch,
  page: { cursor?: string | null | undefined; limit: number },
): Promise<{ items: JobRow[]; nextCursor: string | null }> {
  const after = page.cursor ? decodeJobCursor(page.cursor) : undefined;
  const rows = await searchQuery(db, f, after)
    .selectAll('j')
    .limit(page.limit + 1)
    .execute();
  const items = rows.slice(0, page.limit).map((r) => toJobRow(r as Database['jobs']));
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > page.limit && last ? encodeJobCursor(last) : null };
}

/** How many jobs match (a bulk operation's dry run), counted up to `cap` rows. */
export async function countSearch(db: Db, f: JobSearch, cap: number): Promise<number> {
  const inner = searchQuery(db, f, undefined)
    .clearOrderBy()
    .select(sql.lit(1).as('one'))
    .limit(cap);
  const r = await db
    .selectFrom(inner.as('m'))
    .select(sql<number | string>`count(*)`.as('n'))
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

/** The first page's statement, compiled (to read its plan: `explain` + its text and parameters). */
export function compileSearch(db: Db, f: JobSearch, limit: number) {
  return searchQuery(db, f, undefined).selectAll('j').limit(limit).compile();
}
