// `keys.*` (scope `admin`): the API keys of the caller's own tenant, listed, created and revoked
// over the API (the CLI does the same against the database). A key is shown once, at creation;
// only its hash is stored. Every create and revoke is in the audit log with who and why.

import { z } from 'zod';
import { API_KEY_SCOPES } from './scopes.js';

export const ApiKeyView = z.object({
  id: z.string(),
  label: z.string().nullable(),
  scopes: z.array(z.enum(API_KEY_SCOPES)),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type ApiKeyView = z.infer<typeof ApiKeyView>;
export const KeyListResult = z.object({ items: z.array(ApiKeyView) });
export type KeyListResult = z.infer<typeof KeyListResult>;

export const KeyCreateInput = z
  .object({
    label: z.string().trim().min(1).max(200),
    scopes: z.array(z.enum(API_KEY_SCOPES)).min(1).max(API_KEY_SCOPES.length),
    /** When it stops verifying (ISO time with offset, in the future); omitted: never. */
    expiresAt: z.iso.datetime({ offset: true }).optional(),
    note: z.string().max(2000).optional(),
  })
  .strict();
export type KeyCreateInput = z.input<typeof KeyCreateInput>;
/** The new key: `key` is its secret, shown this once. */
export const KeyCreateResult = ApiKeyView.extend({ key: z.string() });
export type KeyCreateResult = z.infer<typeof KeyCreateResult>;

export const KeyRevokeInput = z
  .object({ id: z.string().min(1).max(100), note: z.string().max(2000).optional() })
  .strict();
export type KeyRevokeInput = z.input<typeof KeyRevokeInput>;
