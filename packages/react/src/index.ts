// @sluice/react: hooks over the typed client. Re-exports only.
export { SluiceProvider, useSluiceClient } from './context.js';
export { useJob } from './use-job.js';
export { useJobs } from './use-jobs.js';
export type { JobListItem, JobsFilter, JobsSnapshot } from './use-jobs.js';
export { emptySnapshot, foldEvent } from './job-snapshot.js';
export type { JobSnapshot } from './job-snapshot.js';
