// `@sluice/runtime-cloudflare-workflows/worker`: what a Worker imports to run jobs on Cloudflare
// Workflows — one Workflow class per job version (`createSluiceWorkflow`), the instance router,
// the D1 and gateway job stores, the dead-letter queue. Runs inside workerd: no Node built-in, no
// database driver. Re-exports only: the run itself is still built inside `@sluice/worker` (it
// drives the worker's attempt, guard and write model, which have no public entry for a push
// platform yet).
export * from '@sluice/worker/cloudflare';
