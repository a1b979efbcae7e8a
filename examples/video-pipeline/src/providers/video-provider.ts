// The example's "video provider": a separate process that renders clips with ffmpeg as
// asynchronous jobs, like a hosted render API.
//   PUT  /v1/uploads                → store an input image (content-addressed; never billed)
//   POST /v1/renders {…}            → bill (ledger), 202 {id}; the render runs in the background
//   GET  /v1/renders/<id>           → {status: running | succeeded | failed, durationSec, size}
//   GET  /v1/renders/<id>/output    → the MP4 (never billed)
//   POST /admin/faults [rules]      → fault knobs (faults.ts)
// Accepted renders are kept on disk: a provider killed mid-render finishes them after a restart
// (without billing again), so the worker's recorded external id stays good.
import { createHash, randomUUID } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';
import { z } from 'zod';
import { createFaultBook, FaultRules, type FaultRule } from './faults.js';
import { callerOf, readJson, sendJson } from './http-kit.js';
import { openLedger } from './ledger.js';
import { LAYOUTS, renderClip } from './render-clip.js';
import { wavDurationSec } from './wav-duration.js';

const RenderRequest = z.object({
  title: z.string().min(1).max(200),
  text: z.string().min(1).max(1000),
  audioUrl: z.string().url().startsWith('http://'),
  layout: z.enum(LAYOUTS),
  width: z.number().int().min(64).max(1920).multipleOf(2),
  height: z.number().int().min(64).max(1080).multipleOf(2),
  fps: z.number().int().min(1).max(30),
  background: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});
type RenderRequest = z.infer<typeof RenderRequest>;

interface RenderJob {
  id: string;
  request: RenderRequest;
  status: 'running' | 'succeeded' | 'failed';
  fault: FaultRule | null;
  durationSec?: number;
  size?: number;
  error?: string;
}

export interface VideoProviderOptions {
  dataDir: string;
  ledgerPath: string;
  faults?: readonly FaultRule[];
}

export function createVideoProvider(opts: VideoProviderOptions): Server {
  const rendersDir = join(opts.dataDir, 'renders');
  const uploadsDir = join(opts.dataDir, 'uploads');
  mkdirSync(rendersDir, { recursive: true });
  mkdirSync(uploadsDir, { recursive: true });
  const ledger = openLedger(opts.ledgerPath);
  const faults = createFaultBook(opts.faults);
  const jobs = new Map<string, RenderJob>();

  const save = (job: RenderJob) => {
    const file = join(rendersDir, `${job.id}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(job));
    renameSync(`${file}.tmp`, file);
    jobs.set(job.id, job);
  };

  async function run(job: RenderJob): Promise<void> {
    const dir = join(rendersDir, job.id);
    mkdirSync(dir, { recursive: true });
    try {
      if (job.fault?.fault === 'slow-render')
        await new Promise((r) => setTimeout(r, job.fault?.delayMs));
      if (job.fault?.fault === 'render-fail') throw new Error('render failed (fault knob)');
      const audio = join(dir, 'audio.wav');
      const res = await fetch(job.request.audioUrl);
      if (!res.ok || !res.body)
        throw new Error(`audio ${job.request.audioUrl}: HTTP ${res.status}`);
      await pipeline(
        Readable.fromWeb(res.body as NodeWebStream<Uint8Array>),
        createWriteStream(audio),
      );
      const audioSec = wavDurationSec(readFileSync(audio));
      const image = job.request.background ? join(uploadsDir, job.request.background) : undefined;
      if (image && !existsSync(image)) throw new Error('background image was never uploaded');
      if (job.fault?.fault === 'crash-mid-render') {
        // Dies while ffmpeg runs; the restarted provider renders this job again (billed once).
        job.fault = null;
        save(job);
        setTimeout(() => process.kill(process.pid, 'SIGKILL'), 150);
      }
      const out = join(dir, 'clip.mp4');
      // Its own part file: an ffmpeg orphaned by a crash may still be writing an older one.
      const part = `${out}.${randomUUID()}.part`;
      await renderClip(dir, { ...job.request, audioSec }, audio, image, part);
      renameSync(part, out);
      save({ ...job, status: 'succeeded', durationSec: audioSec, size: statSync(out).size });
    } catch (error) {
      save({ ...job, status: 'failed', error: (error as Error).message });
    }
  }

  // Renders accepted before a crash are finished now (they were billed once already).
  for (const name of readdirSync(rendersDir).filter((n) => n.endsWith('.json'))) {
    const job = JSON.parse(readFileSync(join(rendersDir, name), 'utf8')) as RenderJob;
    jobs.set(job.id, job);
    if (job.status === 'running') void run(job);
  }

  return createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://local');
      const m = /^\/v1\/renders\/([0-9a-f-]{36})(\/output)?$/.exec(url.pathname);
      if (req.method === 'GET' && m) {
        const job = jobs.get(m[1] as string);
        if (!job) return sendJson(res, 404, { error: 'no such render' });
        if (!m[2]) {
          const { id, status, durationSec, size, error } = job;
          return sendJson(res, 200, { id, status, durationSec, size, error });
        }
        if (job.status !== 'succeeded')
          return sendJson(res, 409, { error: `render is ${job.status}` });
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': job.size });
        createReadStream(join(rendersDir, job.id, 'clip.mp4')).pipe(res);
        return;
      }
      if (req.method === 'PUT' && url.pathname === '/v1/uploads') {
        const tmp = join(uploadsDir, `${randomUUID()}.part`);
        const hash = createHash('sha256');
        let size = 0;
        await pipeline(
          req,
          async function* (source: AsyncIterable<Buffer>) {
            for await (const chunk of source) {
              size += chunk.length;
              if (size > 20 << 20) throw new Error('upload over 20 MiB');
              hash.update(chunk);
              yield chunk;
            }
          },
          createWriteStream(tmp),
        );
        const uploadId = hash.digest('hex');
        renameSync(tmp, join(uploadsDir, uploadId));
        return sendJson(res, 200, { uploadId, size });
      }
      if (req.method === 'POST' && url.pathname === '/admin/faults') {
        faults.set(FaultRules.parse(await readJson(req)));
        return sendJson(res, 200, { ok: true });
      }
      if (req.method === 'POST' && url.pathname === '/v1/renders') {
        const parsed = RenderRequest.safeParse(await readJson(req));
        if (!parsed.success) return sendJson(res, 422, { error: parsed.error.message });
        const caller = callerOf(req);
        const job: RenderJob = {
          id: randomUUID(),
          request: parsed.data,
          status: 'running',
          fault: faults.take(caller) ?? null,
        };
        // Accepted = billed, whatever happens to the render afterwards.
        save(job);
        ledger.append({
          provider: 'video',
          ...caller,
          billed: true,
          workId: job.id,
          fault: job.fault?.fault ?? null,
        });
        void run(job);
        return sendJson(res, 202, { id: job.id, status: 'running' });
      }
      sendJson(res, 404, { error: 'not found' });
    } catch (error) {
      if (!res.headersSent) sendJson(res, 500, { error: (error as Error).message });
      else res.destroy();
    }
  });
}
