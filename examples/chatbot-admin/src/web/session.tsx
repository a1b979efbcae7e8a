// Who is signed in: the tenant's API key (kept for this browser tab only) and its client.
import { createContext, useContext } from 'react';
import type { Client } from './api.js';

export interface Session {
  apiKey: string;
  tenant: string;
  /** The key may requeue jobs (scope `jobs:manage`): operator buttons are shown. */
  operator: boolean;
  client: Client;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('not signed in');
  return s;
}
