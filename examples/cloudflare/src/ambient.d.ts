// workerd's own modules, typed the way @sluice/worker types them (the example type-checks
// without @cloudflare/workers-types).
/// <reference path="../../../packages/worker/src/cloudflare/ambient.d.ts" />
