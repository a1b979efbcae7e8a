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
  fileGet: 'files.get',
  fileList: 'files.list',
  fileDelete: 'files.delete',
  deadLetterList: 'deadLetters.list',
  deadLetterRequeue: 'deadLetters.requeue',
  reviewList: 'review.list',
  reviewApprove: 'review.approve',
  reviewDiscard: 'review.discard',
} as const;

export const UPLOAD_PATH = '/v1/uploads';
export const TRPC_PATH = '/trpc';
export const WS_PATH = '/ws';
