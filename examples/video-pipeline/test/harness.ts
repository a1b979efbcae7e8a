// One suite's world: the two provider processes (their ledgers are the proof of billing), the
// example app's gateway in this process (SQLite + local blobs, the embedded default), a typed
// client, and worker processes started per test so a test can kill one.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSluiceClient, type SluiceClient } from '@sluice/client';
import { getJob, listEvents, type JobRow } from '@sluice/storage';
import { spawnNode, waitFor, type ChildHandle } from '@sluice/testkit';
import WebSocket from 'ws';
import { startApp, type RunningApp } from '../src/app/start-app.js';
import type { Jobs } from '../src/jobs.js';
import { probeMp4, type ProbeRun } from '../src/media/probe-mp4.js';
import { billsByUnit } from '../src/providers/ledger.js';
import { startProvider, type StartedProvider } from '../src/providers/start-provider.js';

export const DEV_KEY = 'dev_video_pipeline_test_key';
export const TENANT = 'dev';

/** Three short scenes: about 4 s of speech in all (short clips keep the suite fast). */
export const SCRIPT = {
  title: 'Retry-safe video',
  scenes: [
    { text: 'Paid work, off the path.' },
    { text: 'Never pays twice.' },
    { text: 'Checked before it ships.' },
  ],
};

export interface Harness {
  readonly dir: string;
  readonly app: RunningApp;
  readonly speech: StartedProvider;
  readonly video: StartedProvider;
  readonly client: SluiceClient<Jobs>;
  /** A worker process; killed (if still running) when the suite ends. */
  worker(id: string, env?: Record<string, string>): Promise<ChildHandle>;
  submit(script?: typeof SCRIPT): Promise<string>;
  job(id: string): Promise<JobRow>;
  waitState(id: string, states: readonly string[], timeoutMs?: number): Promise<JobRow>;
  /** Billed requests per scene, from each provider's own ledger. */
  bills(id: string): { speech: Record<string, number>; video: Record<string, number> };
  progress(id: string): Promise<{ scene: number; step: string }[]>;
  /** GETs the MP4 through the example's route with `key`; saves it when the answer is 200. */
  download(id: string, key?: string): Promise<{ status: number; file?: string; sha256?: string }>;
  probe(file: string): Promise<ProbeRun>;
  close(): Promise<void>;
}

const workerEntry = new URL('./worker-child.ts', import.meta.url);

export async function startHarness(): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-video-test-'));
  const providersDir = join(dir, 'providers');
  const [speech, video] = await Promise.all([
    startProvider('speech', { dataDir: providersDir }),
    startProvider('video', { dataDir: providersDir }),
  ]);
  const app = await startApp({
    database: join(dir, 'sluice.db'),
    blobsDir: join(dir, 'blobs'),
    devApiKey: DEV_KEY,
  });
  const client = createSluiceClient<Jobs>({
    url: app.url,
    apiKey: DEV_KEY,
    WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
  });
  const workers: ChildHandle[] = [];
  const job = async (id: string) => {
    const row = await getJob(app.database.db, TENANT, id);
    if (!row) throw new Error(`job ${id} not found`);
    return row;
  };
  let downloads = 0;
  return {
    dir,
    app,
    speech,
    video,
    client,
    async worker(id, env = {}) {
      const child = await spawnNode(workerEntry, {
        env: {
          DB_URL: join(dir, 'sluice.db'),
          BLOB_DIR: join(dir, 'blobs'),
          SPEECH_URL: speech.url,
          VIDEO_URL: video.url,
          WORK_DIR: join(dir, 'work'),
          WORKER_ID: id,
          ...env,
        },
        readyLine: /^READY$/m,
        readyTimeoutMs: 30_000,
      });
      workers.push(child);
      return child;
    },
    async submit(script = SCRIPT) {
      return (await client.submit('video.render', script)).id;
    },
    job,
    async waitState(id, states, timeoutMs = 60_000) {
      let row: JobRow | undefined;
      await waitFor(
        async () => {
          row = await job(id);
          return states.includes(row.state);
        },
        { timeoutMs, message: `job ${id} in ${states.join('|')}` },
      );
      return row as JobRow;
    },
    bills: (id) => ({
      speech: billsByUnit(speech.ledger(), id),
      video: billsByUnit(video.ledger(), id),
    }),
    async progress(id) {
      const events = await listEvents(app.database.db, id, 0);
      return events.flatMap((e) =>
        e.type === 'progress' ? [e.data as { scene: number; step: string }] : [],
      );
    },
    async download(id, key = DEV_KEY) {
      const res = await fetch(`${app.url}/video/jobs/${encodeURIComponent(id)}/final.mp4`, {
        headers: { authorization: `Bearer ${key}` },
      });
      if (res.status !== 200) return { status: res.status };
      const bytes = Buffer.from(await res.arrayBuffer());
      const file = join(dir, `download-${++downloads}.mp4`);
      writeFileSync(file, bytes);
      return { status: 200, file, sha256: createHash('sha256').update(bytes).digest('hex') };
    },
    probe: (file) => probeMp4(file),
    async close() {
      for (const w of workers) await w.kill();
      await client.close();
      await app.close();
      await Promise.all([speech.stop(), video.stop()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** What must not change between two renders of the same script: the streams and durations. */
export function layoutOf(run: ProbeRun) {
  return {
    format: run.probe?.format.format_name,
    duration: run.probe?.format.duration,
    streams: run.probe?.streams.map((s) => ({
      type: s.codec_type,
      codec: s.codec_name,
      width: s.width,
      height: s.height,
      duration: s.duration,
      frames: s.nb_read_frames,
    })),
  };
}
