// The tRPC instance. One per process is fine: it holds no state, only the context type and the
// error formatter. `isDev: false` keeps stack traces out of every response.

import { initTRPC } from '@trpc/server';
import type { GatewayContext } from './context.js';
import { formatError } from './errors.js';

export const t = initTRPC.context<GatewayContext>().create({
  isDev: false,
  // Written out so tRPC infers the error shape (clients see `data.sluiceCode` typed).
  errorFormatter: ({ shape, error }) => formatError({ shape, error }),
});
