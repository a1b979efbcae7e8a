// The tRPC instance. One per process is fine: it holds no state, only the context type, the
// procedure meta (the scope each procedure needs) and the error formatter. `isDev: false` keeps
// stack traces out of every response.

import type { ApiKeyScope } from '@sluice/contracts';
import { initTRPC } from '@trpc/server';
import type { GatewayContext } from './context.js';
import { formatError } from './errors.js';

export interface ProcedureMeta {
  /** The scope a key needs to call this procedure (procedures.ts `scoped`). */
  scope?: ApiKeyScope;
}

export const t = initTRPC
  .context<GatewayContext>()
  .meta<ProcedureMeta>()
  .create({
    isDev: false,
    // Written out so tRPC infers the error shape (clients see `data.sluiceCode` typed).
    errorFormatter: ({ shape, error }) => formatError({ shape, error }),
  });
