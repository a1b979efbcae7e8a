// Base procedures, with named middleware (STYLE.md 9):
//
//   publicProcedure  maps every SluiceError a resolver throws to its tRPC code (errors.ts)
//   authedProcedure  resolves the tenant from the API key; the tenant never comes from input

import { TRPCError } from '@trpc/server';
import type { ApiKeyAuth } from '../auth/api-key-auth.js';
import { UNAUTHORIZED_MESSAGE } from './context.js';
import { toTRPCError } from './errors.js';
import { t } from './init.js';

export function createProcedures(auth: ApiKeyAuth) {
  const publicProcedure = t.procedure.use(async function mapErrors({ next }) {
    const result = await next();
    if (!result.ok) throw toTRPCError(result.error);
    return result;
  });

  const authedProcedure = publicProcedure.use(async function isAuthed({ ctx, next }) {
    const principal = await auth.verify(ctx.apiKey);
    if (!principal) throw new TRPCError({ code: 'UNAUTHORIZED', message: UNAUTHORIZED_MESSAGE });
    return next({ ctx: { ...ctx, tenantId: principal.tenantId, keyId: principal.keyId } });
  });

  return { router: t.router, publicProcedure, authedProcedure };
}

export type Procedures = ReturnType<typeof createProcedures>;
