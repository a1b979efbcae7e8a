// The asset protocol on the Cloudflare Workflows runtime, in workerd: D1 for the rows (the
// publish's batch form: one check statement, R2's write-if-absent, one fenced atomic batch) and
// R2 for the bytes. Every claim is proven by what is stored — rows counted in D1, objects listed
// and bytes read back from R2 — never by the engine's or the writer's word.
import { beforeAll, describe, expect, it } from 'vitest';
import { assetKeyWeb, createR2BlobStore, d1All, stagingKey } from '@sluice/storage/d1';
import { sweepOrphanAssets, sweepStaging } from '@sluice/worker/platform';
import { createWorkflowRouter } from '../src/worker/router.js';
import { bindings } from './bindings.js';
import {
  database,
  executions,
  jobRow,
  openGate,
  prepareDatabase,
  queuedJob,
  runsOf,
  waitFor,
  waitForStatus,
} from './helpers.js';

const router = createWorkflowRouter({
  database,
  workflows: { v1: bindings.WF_V1, v2: bindings.WF_V2 },
  deadLetters: bindings.DLQ,
});

beforeAll(prepareDatabase);

async function keysUnder(prefix: string): Promise<string[]> {
  return (await bindings.BLOBS.list({ prefix })).objects.map((o) => o.key);
}

/** What is stored for a job: asset rows (D1), final objects and staging objects (R2). */
async function stored(jobId: string) {
  const rows = await d1All<{ final_key: string; sha256: string; size: number; attempt_id: string }>(
    bindings.DB,
    'select final_key, sha256, size, attempt_id from assets where job_id = ? order by final_key',
    jobId,
  );
  return {
    rows,
    finals: await keysUnder(`t/acme/j/${jobId}/`),
    staging: await keysUnder(`staging/t/acme/j/${jobId}/`),
  };
}

async function bytesOf(key: string): Promise<string> {
  const object = await bindings.BLOBS.get(key);
  if (!object || !('body' in object)) throw new Error(`no object at ${key}`);
  return new Response(object.body).text();
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

describe('assets on D1 + R2', () => {
  it('each unit publishes its asset once: one row per unit, one object per row, bytes as hashed, no staging left', async () => {
    const p = await queuedJob('v1', { units: 2, writeAsset: true });
    await router.dispatch(p);
    expect((await waitForStatus(bindings.WF_V1, p.jobId, ['complete', 'errored'])).status).toBe(
      'complete',
    );
    const s = await stored(p.jobId);
    expect(s.rows.map((r) => r.final_key)).toEqual(s.finals);
    expect(s.finals).toHaveLength(2);
    expect(s.staging).toEqual([]);
    for (const row of s.rows) {
      const bytes = await bytesOf(row.final_key);
      expect(row.sha256).toBe(await sha256Hex(bytes));
      expect(row.size).toBe(new TextEncoder().encode(bytes).byteLength);
    }
  });

  it("a replayed unit's asset is neither duplicated nor orphaned (the retry reuses the published row)", async () => {
    // u0 writes its asset, then fails once (retriable) after the gate: the engine re-runs the step.
    const p = await queuedJob('v1', { units: 1, writeAsset: true, gateUnit: 'u0' });
    await router.dispatch(p);
    await openGate(p.jobId, 'fail-once');
    expect((await waitForStatus(bindings.WF_V1, p.jobId, ['complete', 'errored'])).status).toBe(
      'complete',
    );
    expect(await executions(p.jobId)).toEqual({ u0: 2 }); // the unit really ran twice
    const s = await stored(p.jobId);
    expect(s.rows).toHaveLength(1); // not duplicated...
    expect(s.finals).toEqual(s.rows.map((r) => r.final_key)); // ...not orphaned
    expect(s.staging).toEqual([]);
    expect(await bytesOf(s.finals[0]!)).toBe('made by u0');
  });

  it('a replay of run() from the top (pause → resume) re-runs only the unfinished unit; its asset is reused, not written twice', async () => {
    const p = await queuedJob('v1', { units: 2, writeAsset: true, gateUnit: 'u1' });
    await router.dispatch(p);
    // u0 finished (its step stored); u1 has published its asset and waits at its gate.
    await waitFor('u0 done, u1 at its gate', async () => {
      const exec = await executions(p.jobId);
      const rows = (await stored(p.jobId)).rows.length;
      return exec.u0 === 1 && exec.u1 === 1 && rows === 2 ? true : undefined;
    });
    const instance = await bindings.WF_V1.get(p.jobId);
    await instance.pause();
    await openGate(p.jobId, 'fail-once'); // u1 fails once while the pause is pending
    await waitForStatus(bindings.WF_V1, p.jobId, ['paused', 'complete'], 15_000);
    await instance.resume();
    expect((await waitForStatus(bindings.WF_V1, p.jobId, ['complete', 'errored'])).status).toBe(
      'complete',
    );
    expect(await executions(p.jobId)).toEqual({ u0: 1, u1: 2 });
    expect(await runsOf(p.jobId)).toBeGreaterThanOrEqual(2); // run() replayed from the top
    const s = await stored(p.jobId);
    expect(s.rows).toHaveLength(2);
    expect(s.finals).toEqual(s.rows.map((r) => r.final_key));
    expect(s.staging).toEqual([]);
  });

  it("a stale attempt's publish is fenced: no row, nothing at the final key, its staging deleted", async () => {
    const p = await queuedJob('v1', { units: 1, writeAsset: true, gateAssetBody: true });
    await router.dispatch(p);
    // The ownership row is claimed and the body is streaming to staging (held at the gate).
    const running = await waitFor('the ownership row', async () => {
      const owners = await d1All(
        bindings.DB,
        'select 1 from asset_owners where job_id = ?',
        p.jobId,
      );
      return owners.length === 1 ? jobRow(p.jobId) : undefined;
    });
    // Another attempt takes the job over: the epoch moves on under the writer.
    await bindings.DB.prepare('update jobs set epoch = epoch + 1 where id = ?').bind(p.jobId).run();
    await openGate(p.jobId);
    const status = await waitForStatus(bindings.WF_V1, p.jobId, ['complete', 'errored']);
    expect(status).toMatchObject({ status: 'complete', output: { state: 'lease_lost' } });
    const s = await stored(p.jobId);
    expect(s).toEqual({ rows: [], finals: [], staging: [] });
    expect(await jobRow(p.jobId)).toMatchObject({ epoch: (running?.epoch ?? 0) + 1 });
  });

  it('an asset is never overwritten with other bytes: bytes already at the final key are adopted, not replaced', async () => {
    const p = await queuedJob('v1', { units: 1, writeAsset: true });
    // A crashed (or fenced) attempt published its bytes and never wrote its row.
    const finalKey = await assetKeyWeb('acme', p.jobId, 'unit:u0', 'u0.txt');
    const earlier = 'bytes of an earlier attempt';
    await bindings.BLOBS.put(finalKey, earlier);
    await router.dispatch(p);
    expect((await waitForStatus(bindings.WF_V1, p.jobId, ['complete', 'errored'])).status).toBe(
      'complete',
    );
    expect(await bytesOf(finalKey)).toBe(earlier); // not 'made by u0'
    const s = await stored(p.jobId);
    expect(s.rows).toEqual([
      expect.objectContaining({ final_key: finalKey, sha256: await sha256Hex(earlier) }),
    ]);
    expect(s.finals).toEqual([finalKey]);
    expect(s.staging).toEqual([]); // the writer's own staging key was deleted
  });

  it('staging leftovers of dead attempts are swept from R2; a live attempt keeps its own until the job ends', async () => {
    const p = await queuedJob('v1', { units: 1, gateUnit: 'u0' });
    await router.dispatch(p);
    const live = await waitFor('the attempt to run', async () => {
      const row = await jobRow(p.jobId);
      return row?.state === 'running' && (await executions(p.jobId)).u0 === 1 ? row : undefined;
    });
    // Leftovers as a killed isolate leaves them: one of a dead attempt, one of the live one.
    const dead = stagingKey('acme', p.jobId, 'old_attempt', 'tok1');
    const mine = stagingKey('acme', p.jobId, live.attemptId!, 'tok2');
    await bindings.BLOBS.put(dead, 'left by a dead attempt');
    await bindings.BLOBS.put(mine, 'left by the live attempt');
    const blobs = createR2BlobStore(bindings.BLOBS);
    const prefix = `staging/t/acme/j/${p.jobId}/`;
    expect(await sweepStaging({ database, blobs })).toContain(dead);
    expect(await keysUnder(prefix)).toEqual([mine]);
    await openGate(p.jobId);
    await waitForStatus(bindings.WF_V1, p.jobId, ['complete']);
    expect(await sweepStaging({ database, blobs })).toContain(mine);
    expect(await keysUnder(prefix)).toEqual([]);
  });

  it('bytes a fenced attempt left at a final key are deleted once the job has ended; a published asset is kept', async () => {
    // A stale attempt passed its check, then lost the job; its publish landed, its row was refused.
    const p = await queuedJob('v1', { units: 1, writeAsset: true, gateAssetBody: true });
    await router.dispatch(p);
    await waitFor('the ownership row', async () => {
      const owners = await d1All(
        bindings.DB,
        'select 1 from asset_owners where job_id = ?',
        p.jobId,
      );
      return owners.length === 1 ? true : undefined;
    });
    const finalKey = await assetKeyWeb('acme', p.jobId, 'unit:u0', 'u0.txt');
    await bindings.BLOBS.put(finalKey, 'published by the attempt that then lost its row');
    await bindings.DB.prepare("update jobs set epoch = epoch + 1, state = 'cancelled' where id = ?")
      .bind(p.jobId)
      .run();
    await openGate(p.jobId);
    await waitForStatus(bindings.WF_V1, p.jobId, ['complete', 'errored']);
    const done = await queuedJob('v1', { units: 1, writeAsset: true });
    await router.dispatch(done);
    await waitForStatus(bindings.WF_V1, done.jobId, ['complete']);
    expect(await stored(p.jobId)).toMatchObject({ rows: [], finals: [finalKey] });
    const blobs = createR2BlobStore(bindings.BLOBS);
    expect(await sweepOrphanAssets({ database, blobs })).toContain(finalKey);
    expect(await stored(p.jobId)).toEqual({ rows: [], finals: [], staging: [] });
    // the other job's published asset (its row exists) is untouched
    const kept = await stored(done.jobId);
    expect(kept.finals).toEqual(kept.rows.map((r) => r.final_key));
    expect(kept.finals).toHaveLength(1);
  });
});
