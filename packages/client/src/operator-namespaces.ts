// The operator plane's own namespaces of the typed client: bulk operations over a filter and the
// audit log (scope `jobs:manage`).

import {
  API_PATHS,
  AUDIT_EXPORT_PATH,
  type AuditListInput,
  type AuditListResult,
  type BulkAction,
  type BulkListResult,
  type BulkOperationView,
  type BulkPreview,
  type JobFilter,
  type ApiKeyView,
  type KeyCreateInput,
  type KeyCreateResult,
  type KeyListResult,
} from '@sluice/contracts/wire';
import { mutate, query } from './rpc.js';
import { responseError, toApiError } from './to-api-error.js';
import type { Transport } from './transport.js';

export interface BulkStartOptions {
  action: BulkAction;
  filter: JobFilter;
  /** The same key answers the same operation (`isDuplicate: true`): a retried start is safe. */
  operationKey: string;
  /** Required to approve or discard; recorded in the audit log for every action. */
  note?: string | undefined;
  /** For `rerun`: the unit to run again from. */
  fromUnit?: string | undefined;
}

export interface BulkNamespace {
  /** The dry run: how many jobs the filter matches that `action` can move now. */
  preview(action: BulkAction, filter: JobFilter): Promise<BulkPreview>;
  /** Starts (or finds, by `operationKey`) a tracked operation; it runs in the gateway. */
  start(opts: BulkStartOptions): Promise<BulkOperationView>;
  /** Its progress: processed, applied, skipped, failed of `total`, and its state. */
  get(id: string): Promise<BulkOperationView>;
  /** The tenant's operations, newest first. */
  list(opts?: { limit?: number | undefined }): Promise<BulkListResult>;
}

export type AuditFilter = Omit<AuditListInput, 'cursor' | 'limit'>;

export interface AuditNamespace {
  /** Newest first, filtered by action, key, target and time; `nextCursor` continues. */
  list(filter?: AuditListInput): Promise<AuditListResult>;
  /** The whole (filtered) log as JSON lines, streamed (`GET /v1/audit.jsonl`). */
  export(filter?: AuditFilter): Promise<ReadableStream<Uint8Array>>;
}

function defined(o: object | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined));
}

export interface KeysNamespace {
  /** The tenant's API keys, newest first (scope `admin`). */
  list(): Promise<KeyListResult>;
  /** A new key of the caller's tenant; `key` is its secret, shown this once (audited). */
  create(input: KeyCreateInput): Promise<KeyCreateResult>;
  /** Revokes one of the tenant's keys (audited; a revoked key answers unchanged). */
  revoke(id: string, opts?: { note?: string | undefined }): Promise<ApiKeyView>;
}

export function keysNamespace(transport: Transport): KeysNamespace {
  return {
    list: () => query(transport, API_PATHS.keyList, undefined),
    create: (input) => mutate(transport, API_PATHS.keyCreate, defined(input)),
    revoke: (id, opts) => mutate(transport, API_PATHS.keyRevoke, { id, ...defined(opts) }),
  };
}

export function bulkNamespace(transport: Transport): BulkNamespace {
  return {
    preview: (action, filter) => query(transport, API_PATHS.bulkPreview, { action, filter }),
    start: (opts) => mutate(transport, API_PATHS.bulkStart, defined(opts)),
    get: (id) => query(transport, API_PATHS.bulkGet, { id }),
    list: (opts) => query(transport, API_PATHS.bulkList, defined(opts)),
  };
}

export function auditNamespace(transport: Transport): AuditNamespace {
  return {
    list: (filter) => query(transport, API_PATHS.auditList, defined(filter)),
    async export(filter) {
      const params = new URLSearchParams(defined(filter) as Record<string, string>);
      const qs = params.size ? `?${params}` : '';
      let response: Response;
      try {
        response = await transport.fetch(`${transport.endpoints.base}${AUDIT_EXPORT_PATH}${qs}`, {
          headers: { authorization: await transport.authorization() },
        });
      } catch (error) {
        throw toApiError(error);
      }
      if (response.status !== 200 || !response.body) throw await responseError(response);
      return response.body;
    },
  };
}
