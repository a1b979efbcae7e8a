// workerd's own modules, typed the way @sluice/worker types them (this package type-checks
// without @cloudflare/workers-types, whose globals clash with Node's).
/// <reference path="../../worker/src/cloudflare/ambient.d.ts" />
