// `@sluice/worker`: the Node entry, as before the subpath split (`@sluice/worker/node`). Workers
// bundles import `@sluice/worker/platform` (or `/core`) instead, which carry nothing of Node.
export * from './node.js';
