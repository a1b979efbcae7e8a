// API-key scopes: what a key may do. A procedure declares the one scope it needs next to its
// definition (gateway routers); `admin` grants every scope. `metrics:read` reads the gateway's
// `/metrics` on the API port and nothing else: what a Prometheus scraper holds instead of an
// `admin` key (the registry shows every tenant's activity, so no job scope grants it). Stored with the key as a
// space-separated list (storage), shown by `sluice keys list`, chosen by `sluice keys create
// --scope`. Zod-free: the browser client may import this module.

export const API_KEY_SCOPES = [
  'jobs:submit',
  'jobs:read',
  'review:decide',
  'dead-letters:manage',
  /** Operator actions on jobs that are not the submitter's: the legal hold (`jobs.hold`). */
  'jobs:manage',
  'metrics:read',
  'admin',
] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** What a key created without explicit scopes gets, and what keys made before scopes keep. */
export const LEGACY_KEY_SCOPES: readonly ApiKeyScope[] = [
  'jobs:submit',
  'jobs:read',
  'review:decide',
  'dead-letters:manage',
];

export function isApiKeyScope(value: unknown): value is ApiKeyScope {
  return typeof value === 'string' && (API_KEY_SCOPES as readonly string[]).includes(value);
}

/** Whether `granted` allows `required` (`admin` allows everything). */
export function hasScope(granted: readonly string[], required: ApiKeyScope): boolean {
  return granted.includes(required) || granted.includes('admin');
}
