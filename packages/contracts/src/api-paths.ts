// Wire constants without zod, for the browser client.

/** tRPC paths, so client and gateway cannot drift. */
export const API_PATHS = {
  submit: 'jobs.submit',
  get: 'jobs.get',
  list: 'jobs.list',
  cancel: 'jobs.cancel',
  result: 'jobs.result',
  watch: 'jobs.watch',
  watchAll: 'jobs.watchAll',
  hold: 'jobs.hold',
  signal: 'jobs.signal',
  children: 'jobs.children',
  fileGet: 'files.get',
  fileList: 'files.list',
  fileDelete: 'files.delete',
  fileUrl: 'files.signedUrl',
  jobAssets: 'jobs.assets',
  assetUrl: 'jobs.assetUrl',
  deadLetterList: 'deadLetters.list',
  deadLetterRequeue: 'deadLetters.requeue',
  reviewList: 'review.list',
  reviewApprove: 'review.approve',
  reviewDiscard: 'review.discard',
  scheduleCreate: 'schedules.create',
  scheduleGet: 'schedules.get',
  scheduleList: 'schedules.list',
  schedulePause: 'schedules.pause',
  scheduleResume: 'schedules.resume',
  scheduleDelete: 'schedules.delete',
  search: 'jobs.search',
  detail: 'jobs.detail',
  requeue: 'jobs.requeue',
  rerun: 'jobs.rerun',
  bulkPreview: 'bulk.preview',
  bulkStart: 'bulk.start',
  bulkGet: 'bulk.get',
  bulkList: 'bulk.list',
  auditList: 'audit.list',
  whoami: 'auth.whoami',
  overview: 'jobs.overview',
  activity: 'jobs.activity',
  keyList: 'keys.list',
  keyCreate: 'keys.create',
  keyRevoke: 'keys.revoke',
} as const;

/**
 * The most calls one request may carry: an HTTP batch, or one WebSocket message (a JSON array).
 * The gateway refuses a larger batch whole (BAD_REQUEST), so the client never sends one.
 */
export const MAX_BATCH_CALLS = 50;

export const UPLOAD_PATH = '/v1/uploads';
/** `GET`/`POST ${TOKENS_PATH}/:token`: an approval token's status, and its completion. */
export const TOKENS_PATH = '/v1/tokens';
/** `GET ${FILES_PATH}/:id` streams an uploaded file. */
export const FILES_PATH = '/v1/files';
/** `GET ${JOBS_PATH}/:id/assets/:name` streams a job's asset. */
export const JOBS_PATH = '/v1/jobs';
export const TRPC_PATH = '/trpc';
/** `GET ${AUDIT_EXPORT_PATH}?…filters` streams the audit log as JSON lines (scope `jobs:manage`). */
export const AUDIT_EXPORT_PATH = '/v1/audit.jsonl';
export const WS_PATH = '/ws';
