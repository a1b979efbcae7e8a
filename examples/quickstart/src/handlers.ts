// The demo's worker code: one unit per sentence, progress per unit. Runtime-neutral (the core
// entry, no Node global at load), so examples/cloudflare runs it unchanged as a Workflow.
import { defineHandler } from '@sluice/worker/core';
import { summarize } from './jobs.js';
import { countWords, shorten, splitSentences } from './summarize-text.js';

/** Pretend each sentence is a slow, paid call, so watching live shows something. */
const UNIT_DELAY_MS = Number(
  (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env
    .DEMO_UNIT_DELAY_MS ?? 300,
);
/** Units finished so far, per attempt (units may run in parallel). */
const finished = new WeakMap<AbortSignal, number>();

export const summarizeV1 = defineHandler(summarize, {
  prepare: (ctx) =>
    splitSentences(ctx.input.text).map((sentence, i) => ({
      key: `sentence-${i}`,
      input: sentence,
    })),
  async execute(unit, ctx) {
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(resolve, UNIT_DELAY_MS);
      ctx.signal.addEventListener('abort', () => (clearTimeout(t), reject(ctx.signal.reason)), {
        once: true,
      });
    });
    const done = (finished.get(ctx.signal) ?? 0) + 1;
    finished.set(ctx.signal, done);
    const total = splitSentences(ctx.input.text).length;
    ctx.progress({ done, total, sentence: unit.input.slice(0, 200) });
    return shorten(unit.input);
  },
  apply: (results) => results.map((r) => r.result).join(' '),
  finalize: (summary, ctx) => ({ summary, words: countWords(ctx.input.text) }),
});

export const handlers = { 'demo.summarize': { v1: summarizeV1 } };
