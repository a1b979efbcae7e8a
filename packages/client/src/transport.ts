// The wire: tRPC's untyped client over HTTP batching (queries, mutations) and a WebSocket or
// Server-Sent Events (subscriptions), split by operation type. Types come from the registry, never from the
// gateway's router (whose inferred types would pull server code into the app), so the untyped
// client is all we need.

import {
  createTRPCUntypedClient,
  createWSClient,
  httpBatchLink,
  httpLink,
  httpSubscriptionLink,
  splitLink,
  wsLink,
  type TRPCLink,
  type TRPCUntypedClient,
} from '@trpc/client';
import type { AnyRouter } from '@trpc/server';
import {
  MAX_BATCH_CALLS,
  SluiceError,
  TRPC_PATH,
  UPLOAD_PATH,
  WS_PATH,
} from '@sluice/contracts/wire';
import { backoffDelay, type ReconnectOptions } from './backoff.js';
import { batchLimitedWebSocket } from './batch-limited-web-socket.js';

export type ApiKey = string | (() => string | Promise<string>);
type FetchFn = typeof globalThis.fetch;
/** Any WebSocket class with the browser's constructor shape (the `ws` package's fits). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- `ws` and DOM classes differ in detail
export type WebSocketClass = new (url: string, protocols?: string | string[]) => any;

/**
 * An `EventSource` class that takes a `fetch` in its options (the `eventsource` package's), so
 * the API key travels in the Authorization header, never in the URL.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the package's and DOM classes differ in detail
export type EventSourceClass = new (url: string, init?: any) => any;

export interface TransportOptions {
  url: string;
  apiKey: ApiKey;
  /** How subscriptions travel: a WebSocket (default) or SSE (the Workers gateway has only SSE). */
  subscriptions?: 'websocket' | 'sse' | undefined;
  EventSource?: EventSourceClass | undefined;
  WebSocket?: WebSocketClass | undefined;
  fetch?: FetchFn | undefined;
  reconnect?: ReconnectOptions | undefined;
}

export interface Endpoints {
  /** The gateway's base URL without a trailing slash; HTTP routes (`/v1/…`) hang off it. */
  base: string;
  trpc: string;
  upload: string;
  ws: string;
}

/** Where each part of the API lives, from the gateway's base URL (relative in browsers). */
export function endpoints(url: string): Endpoints {
  const base = new URL(url, globalThis.location?.href);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new SluiceError('INVALID_CONFIG', `url must be http(s)://…, got "${url}"`);
  }
  const path = base.pathname.replace(/\/+$/, '');
  const wsProtocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
  return {
    base: `${base.origin}${path}`,
    trpc: `${base.origin}${path}${TRPC_PATH}`,
    upload: `${base.origin}${path}${UPLOAD_PATH}`,
    ws: `${wsProtocol}//${base.host}${path}${WS_PATH}`,
  };
}

export interface Transport {
  readonly trpc: TRPCUntypedClient<AnyRouter>;
  readonly endpoints: Endpoints;
  readonly fetch: FetchFn;
  authorization(): Promise<string>;
  /** Calls `listener` every time the WebSocket opens (first connect and every reconnect). */
  onSocketOpen(listener: () => void): () => void;
  /** Throws INVALID_CONFIG when no WebSocket class is available (a runtime without a global one). */
  assertWebSocket(): void;
  close(): Promise<void>;
}

export function createTransport(options: TransportOptions): Transport {
  const urls = endpoints(options.url);
  const apiKey = async () =>
    typeof options.apiKey === 'function' ? await options.apiKey() : options.apiKey;
  const authorization = async () => `Bearer ${await apiKey()}`;
  const WebSocketImpl: WebSocketClass | undefined =
    options.WebSocket ?? (globalThis as { WebSocket?: WebSocketClass }).WebSocket;
  const fetchImpl: FetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  // createWSClient throws at construction when there is no WebSocket (a runtime without a global
  // one): build it on the first subscription, so HTTP-only use works without one.
  let wsClient: ReturnType<typeof createWSClient> | undefined;
  const openListeners = new Set<() => void>();
  const getWsClient = () =>
    (wsClient ??= createWSClient({
      url: urls.ws,
      WebSocket: batchLimitedWebSocket(WebSocketImpl!) as typeof globalThis.WebSocket,
      connectionParams: async () => ({ apiKey: await apiKey() }),
      // The socket opens with the first subscription and closes when none is left.
      lazy: { enabled: true, closeMs: 1_000 },
      // Ping so a half-open socket (laptop sleep, NAT timeout) is noticed and replaced.
      keepAlive: { enabled: true, intervalMs: 15_000, pongTimeoutMs: 5_000 },
      retryDelayMs: (attempt) => backoffDelay(attempt, options.reconnect),
      onOpen: () => {
        for (const listener of [...openListeners]) listener();
      },
    }));
  const lazyWsLink: TRPCLink<AnyRouter> = (runtime) => {
    let link: ReturnType<TRPCLink<AnyRouter>> | undefined;
    return (op) => (link ??= wsLink({ client: getWsClient() })(runtime))(op);
  };
  const sse = options.subscriptions === 'sse';
  const EventSourceImpl: EventSourceClass | undefined =
    options.EventSource ?? (globalThis as { EventSource?: EventSourceClass }).EventSource;
  const sseLink: TRPCLink<AnyRouter> = httpSubscriptionLink({
    url: urls.trpc,
    EventSource: EventSourceImpl as typeof globalThis.EventSource,
    // The key goes in a header through the EventSource's own fetch, read fresh per subscription.
    eventSourceOptions: async () => {
      const header = await authorization();
      return {
        fetch: (input: RequestInfo | URL, init?: RequestInit) =>
          fetchImpl(input, {
            ...init,
            headers: { ...(init?.headers as Record<string, string>), authorization: header },
          }),
      } as EventSourceInit;
    },
  });

  const trpc = createTRPCUntypedClient<AnyRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: sse ? sseLink : lazyWsLink,
        // A call with a trace context (a submit) goes alone: `traceparent` is one per request.
        false: splitLink({
          condition: (op) => typeof op.context.traceparent === 'string',
          true: httpLink({
            url: urls.trpc,
            fetch: fetchImpl,
            headers: async ({ op }) => ({
              authorization: await authorization(),
              traceparent: op.context.traceparent as string,
            }),
          }),
          false: httpBatchLink({
            url: urls.trpc,
            fetch: fetchImpl,
            maxURLLength: 2_000,
            maxItems: MAX_BATCH_CALLS,
            headers: async () => ({ authorization: await authorization() }),
          }),
        }),
      }),
    ],
  });

  return {
    trpc,
    endpoints: urls,
    fetch: fetchImpl,
    authorization,
    onSocketOpen(listener) {
      openListeners.add(listener);
      return () => openListeners.delete(listener);
    },
    assertWebSocket() {
      if (sse) {
        if (!EventSourceImpl) {
          throw new SluiceError(
            'INVALID_CONFIG',
            'no EventSource class: pass `EventSource` from the `eventsource` package to createSluiceClient',
          );
        }
        return;
      }
      if (!WebSocketImpl) {
        throw new SluiceError(
          'INVALID_CONFIG',
          "no WebSocket class: this runtime has no global WebSocket; pass one (for example the `ws` package's) as `WebSocket` to createSluiceClient",
        );
      }
    },
    async close() {
      await wsClient?.close();
    },
  };
}
