// Child process for spawn-node.test.ts. Importing @sluice/testkit by name proves the
// `@sluice/source` condition reaches the child (there is no dist to fall back on).
import { sleep } from '@sluice/testkit';

const mode = process.argv[2] ?? 'serve';
if (mode === 'crash') {
  console.error('about to crash');
  process.exit(3);
}
if (process.env.IGNORE_SIGTERM === '1') {
  process.on('SIGTERM', () => console.log('ignoring SIGTERM'));
} else {
  process.on('SIGTERM', () => {
    console.log('draining');
    process.exit(0);
  });
}
await sleep(Number(process.env.READY_DELAY_MS ?? 0));
console.log(`ready pid=${process.pid} greeting=${process.env.GREETING ?? ''}`);
setInterval(() => console.log('tick'), 100);
