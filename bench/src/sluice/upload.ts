// Row 7: one large body streamed through `POST /v1/uploads` (the gateway hashes it and writes it
// to its local blob store). The client streams a repeated 1 MiB buffer with back-pressure; the
// gateway's peak RSS is its VmHWM after resetting it before the upload (sampled VmRSS every
// 10 ms as well, in case the kernel refuses the reset). The gateway runs in a fresh process, so
// the growth is not hidden by heap that earlier runs left free.
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BenchServices, UploadResult, UploadSpec } from '../adapter.js';
import { monoMs } from '../harness/clock.js';
import { startGatewayRun } from './gateway-run.js';
import { cpuMsOf, readMemKiB, resetPeakRss } from './proc-status.js';
import type { Storage } from './sluice-db.js';

const CHUNK = 1024 * 1024;
const SAMPLE_MS = 10;
const MIB = 1024 * 1024;

function body(bytes: number): Readable {
  const chunk = Buffer.alloc(CHUNK);
  for (let i = 0; i < CHUNK; i++) chunk[i] = (i * 131) & 0xff;
  return Readable.from(
    (function* () {
      for (let sent = 0; sent < bytes; sent += CHUNK)
        yield sent + CHUNK <= bytes ? chunk : chunk.subarray(0, bytes - sent);
    })(),
    { objectMode: false },
  );
}

/** One upload of `bytes` to `url` (the gateway's base URL + `/v1/uploads`), streamed with back-pressure. */
export function post(
  url: string,
  apiKey: string,
  bytes: number,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/octet-stream',
        'content-length': String(bytes),
        'x-filename': 'bench.bin',
      },
    });
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.once('error', reject);
    });
    req.once('error', reject);
    pipeline(body(bytes), req).catch(reject);
  });
}

export async function runUpload(
  storage: Storage,
  services: BenchServices,
  spec: UploadSpec,
): Promise<UploadResult> {
  const run = await startGatewayRun(storage, services, {
    maxUploadBytes: spec.bytes + MIB,
    freshProcess: true,
  });
  try {
    const { pid, url } = run.gateway;
    // A small upload first: the route, the blob store and the database are warm.
    await post(`${url}/v1/uploads`, run.apiKey, 64 * 1024);
    const before = readMemKiB(pid);
    const reset = resetPeakRss(pid);
    let sampledPeak = before.rss;
    const sampler = setInterval(() => {
      sampledPeak = Math.max(sampledPeak, readMemKiB(pid).rss);
    }, SAMPLE_MS);
    const cpuBefore = cpuMsOf(pid);
    const t0 = monoMs();
    let answer: { status: number; text: string };
    try {
      answer = await post(`${url}/v1/uploads`, run.apiKey, spec.bytes);
    } finally {
      clearInterval(sampler);
    }
    const seconds = (monoMs() - t0) / 1000;
    const cpuMs = cpuMsOf(pid) - cpuBefore;
    const after = readMemKiB(pid);
    if (answer.status !== 201) throw new Error(`upload answered ${answer.status}: ${answer.text}`);
    const size = (JSON.parse(answer.text) as { size?: number }).size;
    if (size !== spec.bytes) throw new Error(`upload stored ${size} bytes, sent ${spec.bytes}`);
    const peak = Math.max(sampledPeak, reset ? after.hwm : 0);
    return {
      mibPerSec: spec.bytes / MIB / seconds,
      peakRssGrowthMiB: (peak - before.rss) / 1024,
      detail: {
        storage,
        gatewayPid: run.gateway.pid,
        seconds,
        rssBeforeMiB: before.rss / 1024,
        peakRssMiB: peak / 1024,
        sampledPeakMiB: sampledPeak / 1024,
        hwmResetWorked: reset,
        rssAfterMiB: after.rss / 1024,
        gatewayCpuMs: cpuMs,
      },
    };
  } finally {
    await run.dispose();
  }
}
