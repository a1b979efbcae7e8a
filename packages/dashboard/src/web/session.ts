// Who is signed in: the pasted API key (kept in sessionStorage, this tab only), what the gateway
// says the key is (`auth.whoami`), and the client. `can(scope)` decides which actions are shown;
// the gateway checks every call again, so hiding a button is a courtesy, not the control.
import { createSluiceClient, type SluiceClient } from '@sluice/client';
import { hasScope, type ApiKeyScope, type JobRegistry, type WhoAmI } from '@sluice/contracts/wire';
import { createContext, useContext } from 'react';

export type Client = SluiceClient<JobRegistry>;

export interface Session {
  apiKey: string;
  who: WhoAmI;
  client: Client;
  can(scope: ApiKeyScope): boolean;
}

const STORAGE_KEY = 'sluice.dashboard.apiKey';

export function makeClient(apiKey: string): Client {
  // Same origin: the page is served by the gateway or by a proxy in front of it.
  return createSluiceClient({ url: location.origin, apiKey });
}

export async function signIn(apiKey: string): Promise<Session> {
  const client = makeClient(apiKey);
  try {
    const who = await client.auth.whoami();
    sessionStorage.setItem(STORAGE_KEY, apiKey);
    return { apiKey, who, client, can: (s) => hasScope(who.scopes, s) };
  } catch (error) {
    await client.close();
    throw error;
  }
}

export const savedKey = () => sessionStorage.getItem(STORAGE_KEY);
export const forgetKey = () => sessionStorage.removeItem(STORAGE_KEY);

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('not signed in');
  return s;
}
