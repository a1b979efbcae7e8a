// The client the hooks use: one per app, given once by <SluiceProvider client={…}>.

import { createContext, createElement, useContext, type ReactNode } from 'react';
import type { SluiceClient } from '@sluice/client';
import type { JobRegistry } from '@sluice/contracts/wire';
import { SluiceError } from '@sluice/contracts/wire';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any registry: hooks narrow it by their type argument
type AnyClient = SluiceClient<any>;

const SluiceContext = createContext<AnyClient | null>(null);

export function SluiceProvider(props: { client: AnyClient; children?: ReactNode }) {
  return createElement(SluiceContext.Provider, { value: props.client }, props.children);
}

/** The provider's client, typed by the app's registry (`useSluiceClient<typeof jobs>()`). */
export function useSluiceClient<R extends JobRegistry>(): SluiceClient<R> {
  const client = useContext(SluiceContext);
  if (!client) {
    throw new SluiceError('INVALID_CONFIG', 'no Sluice client: wrap the app in <SluiceProvider>');
  }
  return client as SluiceClient<R>;
}
