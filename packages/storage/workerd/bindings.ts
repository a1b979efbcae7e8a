// The bindings of wrangler.test.jsonc, typed structurally (the package is type-checked without
// the Workers globals; the real objects come from workerd).
import { env } from 'cloudflare:workers';
import type { R2BucketLike } from '../src/blobs/r2-like.js';
import type { D1Like } from '../src/dialect/d1/d1-like.js';

export const bindings = env as { DB: D1Like; BLOBS: R2BucketLike };
