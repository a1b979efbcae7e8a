// The browser page of browser.test.ts: the client as a product page uses it (upload a File,
// submit, watch to the end, typed result, typed error). The registry is imported as a type only,
// so none of its zod schemas reach the bundle.
import { createSluiceClient, isJobFailedError, type JobWatchEvent } from '../../src/index.js';
import type { TestJobs } from '../fixtures/jobs.js';

type EchoEvent = JobWatchEvent<TestJobs['test.echo']>;

function describeEvent(event: EchoEvent): string {
  switch (event.type) {
    case 'state':
      return event.to;
    case 'progress':
      return `step ${event.data.step}/${event.data.of}`;
    default:
      return event.type;
  }
}

async function main(): Promise<unknown> {
  const apiKey = new URLSearchParams(location.search).get('key') ?? '';
  const client = createSluiceClient<TestJobs>({ url: location.origin, apiKey });
  const list = document.getElementById('events')!;
  try {
    const file = await client.upload(
      new File(['hello from chromium\n'], 'hello.txt', { type: 'text/plain' }),
    );
    const handle = await client.submit('test.echo', {
      text: 'from the browser',
      steps: 3,
      stepMs: 50,
    });
    const events: EchoEvent[] = [];
    for await (const event of handle.watch()) {
      events.push(event);
      const item = document.createElement('li');
      item.textContent = `#${event.seq} ${describeEvent(event)}`;
      list.append(item);
    }
    const output = await handle.result();
    const digest = await client.submit('test.digest', { fileId: file.id }, { fileIds: [file.id] });
    const trouble = await client.submit('test.trouble', { mode: 'fail' });
    const failed = await trouble.result().then(
      () => null,
      (error: unknown) => ({ guard: isJobFailedError(error), error }),
    );
    return { file, events, output, digest: await digest.result(), failed };
  } finally {
    await client.close();
  }
}

main().then(
  (result) => {
    (window as unknown as { sluiceResult: unknown }).sluiceResult = JSON.parse(
      JSON.stringify(result, (_key, value: unknown) =>
        value instanceof Error ? { ...value, name: value.name, message: value.message } : value,
      ),
    );
    document.body.dataset.done = '1';
  },
  (error: unknown) => {
    (window as unknown as { sluiceResult: unknown }).sluiceResult = {
      error:
        error instanceof Error ? `${error.name}: ${error.message}\n${error.stack}` : String(error),
    };
    document.body.dataset.done = 'error';
  },
);
