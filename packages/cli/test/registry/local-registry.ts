// A private npm registry for one test: Verdaccio (from npm, a devDependency) in its own process on
// a free loopback port, storage in a temp folder, and NO uplinks: it serves only what the test
// publishes to it. Apps point only the @sluice scope at it (`@sluice:registry=` in their .npmrc),
// so every other package still comes from the configured registry through npm's cache, and a
// @sluice package that was not published here is a 404, never a copy from elsewhere.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePort } from '@sluice/testkit';

export interface LocalRegistry extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** A token that may publish @sluice/* (a user created at start). */
  readonly token: string;
  /** .npmrc lines: the @sluice scope from this registry (with the token when `publish`). */
  npmrc(opts?: { publish?: boolean }): string;
  output(): string;
}

const CONFIG = (dir: string) => `storage: ${join(dir, 'storage')}
auth:
  htpasswd:
    file: ${join(dir, 'htpasswd')}
    max_users: 10
uplinks: {}
packages:
  '@sluice/*':
    access: $all
    publish: $authenticated
    unpublish: $authenticated
  '**':
    access: $all
middlewares:
  audit:
    enabled: false
web:
  enable: false
log: { type: stdout, format: json, level: warn }
`;

export async function startLocalRegistry(dir: string): Promise<LocalRegistry> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.yaml'), CONFIG(dir));
  const bin = join(
    dirname(createRequire(import.meta.url).resolve('verdaccio/package.json')),
    'bin',
    'verdaccio',
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const child: ChildProcess = spawn(
    process.execPath,
    [bin, '--config', join(dir, 'config.yaml'), '--listen', `127.0.0.1:${port}`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d));
  child.stderr?.on('data', (d: Buffer) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    child.kill('SIGKILL');
  };
  try {
    await waitUntilUp(
      url,
      () => child.exitCode !== null,
      () => output,
    );
    const token = await createUser(url);
    const scope = `@sluice:registry=${url}\n`;
    const auth = `//127.0.0.1:${port}/:_authToken=${token}\n`;
    return {
      url,
      token,
      npmrc: (opts = {}) => scope + (opts.publish ? auth : ''),
      output: () => output,
      [Symbol.asyncDispose]: stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function waitUntilUp(url: string, exited: () => boolean, output: () => string) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (exited()) throw new Error(`verdaccio exited:\n${output()}`);
    const up = await fetch(`${url}-/ping`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`verdaccio did not answer /-/ping within 60 s:\n${output()}`);
}

/** npm's adduser call: creates the user in the htpasswd file and answers a token. */
async function createUser(url: string): Promise<string> {
  const name = 'sluice-test';
  const res = await fetch(`${url}-/user/org.couchdb.user:${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password: 'sluice-test-password', type: 'user', roles: [] }),
  });
  const body = (await res.json()) as { token?: string };
  if (!res.ok || !body.token)
    throw new Error(`verdaccio adduser: ${res.status} ${JSON.stringify(body)}`);
  return body.token;
}
