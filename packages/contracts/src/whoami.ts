// `auth.whoami`: what the calling API key is (id, label, tenant, scopes, expiry). An operator UI
// shows only the actions these scopes allow; the gateway still checks every call on its own.

import { z } from 'zod';
import { API_KEY_SCOPES } from './scopes.js';

export const WhoAmIInput = z.object({}).strict().optional();
export const WhoAmI = z.object({
  /** `dev` for the development key. */
  keyId: z.string(),
  /** The label the key was created with (null: none, or the development key). */
  label: z.string().nullable(),
  tenantId: z.string(),
  scopes: z.array(z.enum(API_KEY_SCOPES)),
  /** When the key stops verifying (ISO time), null for never. */
  expiresAt: z.string().nullable(),
});
export type WhoAmI = z.infer<typeof WhoAmI>;
