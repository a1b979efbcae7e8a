// Catches a dead holder's message that waits out AckWait although a live worker was told the
// holder is dead, and a take-over that hands one message out twice: consumer A pulls a message
// and stops (no ack, no renewal: dead); B lists A among the holders, takes A's deliveries over
// and reads the message at once (AckWait is 30 s); a later take-over for A by C finds nothing
// left to hand back, so C reads nothing while B holds it.
import { formatJobId } from '@sluice/contracts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openNatsFixture, type NatsFixture } from '../testing/nats-fixture.js';
import { createNatsConsumer, type NatsConsumer } from './create-nats-consumer.js';

const versions = [{ kind: 'to.job', version: 'v1' }];
let fx: NatsFixture;
const opened: NatsConsumer[] = [];
const consumer = (workerId: string) => {
  const c = createNatsConsumer({
    url: fx.server.url,
    prefix: fx.names.prefix,
    workerId,
    versions,
    leaseMs: 30_000,
    blockMs: 200,
  });
  opened.push(c);
  return c;
};

beforeAll(async () => {
  fx = await openNatsFixture();
});
afterAll(async () => {
  for (const c of opened) await c.close();
  await fx?.dispose();
});

it('hands a dead holder’s delivery to a live worker at once, and only once', async () => {
  const [a, b, c] = [consumer('to-a'), consumer('to-b'), consumer('to-c')];
  await Promise.all([a.init(), b.init(), c.init()]);
  const jobId = formatJobId('v1');
  await fx.dispatch([{ jobId, kind: 'to.job', version: 'v1', tenantId: 'acme' }]);
  const held = await a.read(1);
  expect(held.map((d) => d.pointer?.jobId)).toEqual([jobId]);

  expect(await b.holders?.()).toEqual(['to-a']);
  const asked = Date.now();
  await b.takeOver?.(['to-a']);
  let got = await b.read(1);
  while (got.length === 0 && Date.now() - asked < 5_000) got = await b.read(1);
  expect(got.map((d) => d.pointer?.jobId)).toEqual([jobId]);
  // Well inside AckWait (30 s): the take-over, not the expiry, handed it out.
  expect(Date.now() - asked).toBeLessThan(5_000);
  expect(await b.holders?.()).toEqual(['to-b']);

  // A second take-over for the same dead holder: nothing of A's is left to hand back.
  await c.takeOver?.(['to-a']);
  const deadline = Date.now() + 1_500;
  while (Date.now() < deadline) expect(await c.read(1)).toEqual([]);
  await b.ack(got);
  expect(await fx.outstanding('to.job')).toBe(0);
});
