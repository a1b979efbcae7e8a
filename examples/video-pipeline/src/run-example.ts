// `npm run example:video [-- script.json] [--background image.png] [--serve]`: the whole example
// on the embedded default (SQLite under .sluice/video, local blobs): starts the speech and
// video provider processes, a gateway with the example's routes and a worker, submits the
// script with the typed client, prints each scene's steps as they happen, downloads the MP4
// through the tenant-checked route and prints what ffprobe says about it. With --serve it stays
// up so the page at /video can play the result.
//
// Before anything starts: the arguments (paths from the caller's directory) and the script are
// checked, and so are the media tools. Every way it can stop is one message on stderr and an
// exit code (2 usage, 3 a missing tool, 1 a job that did not succeed), never a stack unless
// SLUICE_DEBUG=1.
import { createReadStream, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createSluiceClient } from '@sluice/client';
import { randomToken } from '@sluice/contracts';
import WebSocket from 'ws';
import { startApp } from './app/start-app.js';
import { describeMissingTools, missingMediaTools } from './cli/preflight.js';
import { fromCaller, readScript, UsageError } from './cli/read-script.js';
import type { Jobs } from './jobs.js';
import { probeMp4 } from './media/probe-mp4.js';
import { optionsFromEnv } from './options.js';
import { startProvider } from './providers/start-provider.js';

const say = (line: string) => process.stdout.write(`${line}\n`);

class MissingToolsError extends Error {
  override readonly name = 'MissingToolsError';
}

function parseCommandLine() {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { background: { type: 'string' }, serve: { type: 'boolean' } },
    });
  } catch (error) {
    throw new UsageError(
      `${(error as Error).message}; usage: [script.json] [--background image] [--serve]`,
    );
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1)
    throw new UsageError(`one script at most, got ${positionals.join(' ')}`);
  const here = new URL('..', import.meta.url).pathname;
  const given = positionals[0];
  const script = given
    ? readScript(fromCaller(given), given)
    : readScript(join(here, 'scripts/sample-script.json'));
  let background: string | undefined;
  if (values.background) {
    background = fromCaller(values.background);
    if (!statSync(background, { throwIfNoEntry: false })?.isFile()) {
      throw new UsageError(`--background ${values.background} (${background}): no such file`);
    }
  }
  return { script, background, serve: values.serve ?? false };
}

async function main(): Promise<void> {
  const args = parseCommandLine();
  const { script } = args;
  const missing = await missingMediaTools();
  if (missing.length > 0) throw new MissingToolsError(describeMissingTools(missing));

  const home = resolve(process.env.SLUICE_HOME ?? '.sluice/video');
  mkdirSync(home, { recursive: true });

  const [speech, video] = await Promise.all([
    startProvider('speech', { dataDir: join(home, 'providers') }),
    startProvider('video', { dataDir: join(home, 'providers') }),
  ]);
  const apiKey = process.env.SLUICE_API_KEY ?? `dev_${randomToken()}`;
  const app = await startApp({
    database: join(home, 'sluice.db'),
    blobsDir: join(home, 'blobs'),
    devApiKey: apiKey,
    port: Number(process.env.PORT ?? 3000),
    rolloutV2: Number(process.env.SLUICE_ROLLOUT_VIDEO_RENDER ?? 0),
    worker: {
      ...optionsFromEnv({
        ...process.env,
        SPEECH_PROVIDER_URL: speech.url,
        VIDEO_PROVIDER_URL: video.url,
      }),
      workDir: join(home, 'work'),
    },
  });
  const client = createSluiceClient<Jobs>({
    url: app.url,
    apiKey,
    WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
  });
  const shutdown = async () => {
    await client.close();
    await app.close();
    await Promise.all([speech.stop(), video.stop()]);
  };

  try {
    say(`speech provider ${speech.url} (ledger ${speech.ledgerPath})`);
    say(`video provider  ${video.url} (ledger ${video.ledgerPath})`);
    say(`gateway ${app.url}, dev API key: ${apiKey}`);
    const fileIds: string[] = [];
    if (args.background) {
      const file = await client.upload(createReadStream(args.background), {
        filename: basename(args.background),
      });
      fileIds.push(file.id);
    }
    const job = await client.submit(
      'video.render',
      { ...script, ...(fileIds[0] ? { background: fileIds[0] } : {}) },
      { fileIds },
    );
    say(`submitted ${job.id}: "${script.title}", ${script.scenes.length} scenes`);
    for await (const event of job.watch()) {
      if (event.type === 'progress') {
        const p = event.data;
        say(p.scene > 0 ? `  scene ${p.scene}/${p.scenes}: ${p.step}` : `  job: ${p.step}`);
      } else if ('to' in event) say(`  state → ${event.to}`);
    }
    const result = await job.result();
    const res = await fetch(`${app.url}${result.downloadPath}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    if (!res.ok) throw new Error(`download: HTTP ${res.status}`);
    const out = join(home, `${job.id}.mp4`);
    writeFileSync(out, Buffer.from(await res.arrayBuffer()));
    const { probe } = await probeMp4(out);
    const streams = probe?.streams.map(
      (s) => `${s.codec_type} ${s.codec_name}${s.width ? ` ${s.width}x${s.height}` : ''}`,
    );
    say(
      `MP4 ${out}: ${result.asset.size} bytes, ${result.asset.durationSec.toFixed(2)} s, ${streams?.join(' + ')} (${result.version})`,
    );
    const bills = (records: { jobId: string; billed: boolean }[]) =>
      records.filter((r) => r.jobId === job.id && r.billed).length;
    say(`billed: ${bills(speech.ledger())} speech, ${bills(video.ledger())} renders`);
    if (args.serve) {
      say(
        `play it: ${app.url}/video?job=${encodeURIComponent(job.id)} (paste the API key); Ctrl-C stops`,
      );
      await new Promise<void>((r) => process.once('SIGINT', () => r()));
    }
  } finally {
    await shutdown();
  }
}

main().then(
  () => (process.exitCode = 0),
  (error: unknown) => {
    const debug = process.env.SLUICE_DEBUG === '1';
    const [code, message] =
      error instanceof UsageError
        ? [2, error.message]
        : error instanceof MissingToolsError
          ? [3, error.message]
          : // A job that ended otherwise says how in its message (`job … needs review: …`).
            [1, error instanceof Error ? error.message : String(error)];
    process.stderr.write(`video example: ${message}\n`);
    if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    process.exit(code);
  },
);
