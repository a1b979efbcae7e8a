// Talking to a Restate server over HTTP: one-way sends through the ingress (HTTP/2, one session,
// many streams), deployment registration and SQL introspection through the admin API.
import http2 from 'node:http2';
import { RESTATE_SEND_PATH } from './restate-config.js';

/** An HTTP/2 session to the ingress; `send` starts one invocation and resolves once accepted. */
export function ingressSender(ingressUrl: string): {
  send(body: unknown): Promise<void>;
  close(): void;
} {
  const session = http2.connect(ingressUrl);
  session.on('error', () => undefined);
  return {
    send: (body) =>
      new Promise<void>((resolve, reject) => {
        const request = session.request({
          ':method': 'POST',
          ':path': RESTATE_SEND_PATH,
          'content-type': 'application/json',
        });
        let status = 0;
        let text = '';
        request.on('response', (headers) => (status = Number(headers[':status'])));
        request.on('data', (chunk: Buffer) => (text += chunk.toString()));
        request.on('end', () =>
          status >= 200 && status < 300
            ? resolve()
            : reject(new Error(`restate ingress ${status}: ${text.slice(0, 200)}`)),
        );
        request.on('error', reject);
        request.end(JSON.stringify(body));
      }),
    close: () => session.close(),
  };
}

/** Registers the workers' endpoint (the server discovers its services from it). */
export async function registerDeployment(adminUrl: string, endpointUrl: string): Promise<void> {
  const response = await fetch(`${adminUrl}/deployments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ uri: endpointUrl, use_http_11: false }),
  });
  if (!response.ok)
    throw new Error(`restate deployment: ${response.status} ${await response.text()}`);
}

/** Rows of a query on the server's introspection tables (sys_invocation, …). */
export async function adminQuery<T>(adminUrl: string, query: string): Promise<T[]> {
  const response = await fetch(`${adminUrl}/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query }),
  });
  if (!response.ok) throw new Error(`restate query: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { rows: T[] }).rows;
}
