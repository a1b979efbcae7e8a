// workerd's own modules, typed the way @sluice/runtime-cloudflare-workflows types them (the
// example type-checks without @cloudflare/workers-types).
/// <reference path="../../../packages/runtime-cloudflare-workflows/src/ambient.d.ts" />
