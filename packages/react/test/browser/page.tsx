// The hooks' browser page: every watched job renders its snapshot as data attributes the test
// reads, and the list of `test.steps` jobs renders from useJobs. The test drives it through
// `window.hooks` (watch an id, or submit from the page and watch the handle).
import { createSluiceClient, type JobHandle } from '@sluice/client';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import { flushSync } from 'react-dom';
import { SluiceProvider, useJob, useJobs } from '../../src/index.js';
import type { TestJobs } from '../fixtures/jobs.js';

type Steps = TestJobs['test.steps'];

function Watch(props: { job: string | JobHandle<Steps> }) {
  const snap = useJob<Steps>(props.job);
  return (
    <section
      data-job={snap.id}
      data-state={snap.state ?? ''}
      data-seqs={snap.events.map((e) => e.seq).join(',')}
      data-steps={snap.events
        .flatMap((e) => (e.type === 'progress' ? [e.data.step] : []))
        .join(',')}
      data-progress={snap.progress ? `${snap.progress.step}/${snap.progress.of}` : ''}
      data-units={snap.unitsDone.length}
      data-result={snap.result ? JSON.stringify(snap.result) : ''}
      data-error={snap.error ? `${snap.error.name}` : ''}
      data-reason={snap.reason ?? ''}
    >
      {snap.id}: {snap.state}
    </section>
  );
}

function List() {
  const { jobs, loading } = useJobs<TestJobs, 'test.steps'>({ kind: 'test.steps' });
  return (
    <ul id="list" data-loading={loading ? '1' : ''}>
      {jobs.map((item) => (
        <li
          key={item.view.id}
          data-list-job={item.view.id}
          data-state={item.view.state}
          data-progress={item.progress ? `${item.progress.step}/${item.progress.of}` : ''}
        >
          {item.view.id}
        </li>
      ))}
    </ul>
  );
}

/** Every kind, only jobs waiting for a person: jobs enter and leave it live. */
function ReviewList() {
  const { jobs } = useJobs<TestJobs>({ states: ['needs_review'] });
  return (
    <ul id="review-list">
      {jobs.map((item) => (
        <li key={item.view.id} data-review-job={item.view.id} data-state={item.view.state} />
      ))}
    </ul>
  );
}

const apiKey = new URLSearchParams(location.search).get('key') ?? '';
const client = createSluiceClient<TestJobs>({
  url: location.origin,
  apiKey,
  reconnect: { minMs: 20, maxMs: 300 },
});
let show: (job: string | JobHandle<Steps>) => void = () => undefined;

function App() {
  const [watched, setWatched] = useState<(string | JobHandle<Steps>)[]>([]);
  show = (job) => flushSync(() => setWatched((w) => [...w, job]));
  return (
    <SluiceProvider client={client}>
      <List />
      <ReviewList />
      {watched.map((job) => (
        <Watch key={typeof job === 'string' ? job : job.id} job={job} />
      ))}
    </SluiceProvider>
  );
}

(window as unknown as { hooks: unknown }).hooks = {
  watch: (id: string) => show(id),
  async submitAndWatch(label: string, steps: number, stepMs: number) {
    const handle = await client.submit('test.steps', { label, steps, stepMs });
    show(handle);
    return handle.id;
  },
};
createRoot(document.getElementById('root')!).render(<App />);
document.body.dataset.ready = '1';
