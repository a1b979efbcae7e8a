// The bindings of wrangler.test.jsonc as the workerd tests see them (structural types: the
// package is type-checked without the Workers globals).
declare module 'cloudflare:workers' {
  import type { D1Like } from '../src/d1/d1-like.js';
  export const env: { DB: D1Like; BLOBS: unknown };
}
