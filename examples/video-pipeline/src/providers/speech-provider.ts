// The example's "speech provider": a separate process that really synthesises with espeak-ng.
//   POST /v1/speech {text, voice}  → synthesise, bill (ledger), 200 {audioId, audioUrl, durationSec}
//   GET  /v1/audio/<id>.wav        → the audio (never billed)
//   POST /admin/faults [rules]     → fault knobs (faults.ts)
// No idempotency key is honoured: a second request for the same text bills again, which is
// exactly why the job declares this call `sync` + `none` (ambiguous) and the guard never
// repeats it without a person's approval.
import { randomUUID } from 'node:crypto';
import { createReadStream, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { z } from 'zod';
import { runTool } from '../media/run-tool.js';
import { createFaultBook, FaultRules, type FaultRule } from './faults.js';
import { callerOf, readJson, sendJson } from './http-kit.js';
import { openLedger } from './ledger.js';
import { wavDurationSec } from './wav-duration.js';

const SpeechRequest = z.object({
  text: z.string().min(1).max(1000),
  voice: z.string().regex(/^[a-z0-9+-]{2,30}$/),
  /** Words per minute. */
  speed: z.number().int().min(80).max(300).default(170),
});

export interface SpeechProviderOptions {
  dataDir: string;
  ledgerPath: string;
  faults?: readonly FaultRule[];
}

export function createSpeechProvider(opts: SpeechProviderOptions): Server {
  const audioDir = join(opts.dataDir, 'audio');
  mkdirSync(audioDir, { recursive: true });
  const ledger = openLedger(opts.ledgerPath);
  const faults = createFaultBook(opts.faults);
  return createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://local');
      const audio = /^\/v1\/audio\/([0-9a-f-]{36})\.wav$/.exec(url.pathname);
      if (req.method === 'GET' && audio) {
        const stream = createReadStream(join(audioDir, `${audio[1]}.wav`));
        stream.once('error', () => sendJson(res, 404, { error: 'no such audio' }));
        stream.once('open', () => res.writeHead(200, { 'content-type': 'audio/wav' }));
        stream.pipe(res);
        return;
      }
      if (req.method === 'POST' && url.pathname === '/admin/faults') {
        faults.set(FaultRules.parse(await readJson(req)));
        return sendJson(res, 200, { ok: true });
      }
      if (req.method === 'POST' && url.pathname === '/v1/speech') {
        const parsed = SpeechRequest.safeParse(await readJson(req));
        if (!parsed.success) return sendJson(res, 422, { error: parsed.error.message });
        const caller = callerOf(req);
        const fault = faults.take(caller);
        const audioId = randomUUID();
        const file = join(audioDir, `${audioId}.wav`);
        const { text, voice, speed } = parsed.data;
        await runTool('espeak-ng', ['-v', voice, '-s', String(speed), '-w', file, '--', text]);
        const durationSec = wavDurationSec(readFileSync(file));
        // The work is done: bill it before answering (the answer may never arrive).
        ledger.append({
          provider: 'speech',
          ...caller,
          billed: true,
          workId: audioId,
          fault: fault?.fault ?? null,
        });
        if (fault?.fault === 'commit-then-drop') {
          req.socket.destroy();
          return;
        }
        const host = req.headers.host ?? '127.0.0.1';
        return sendJson(res, 200, {
          audioId,
          audioUrl: `http://${host}/v1/audio/${audioId}.wav`,
          durationSec,
        });
      }
      sendJson(res, 404, { error: 'not found' });
    } catch (error) {
      if (!res.headersSent) sendJson(res, 500, { error: (error as Error).message });
      else res.destroy();
    }
  });
}
