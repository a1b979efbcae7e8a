// Documents: drop or pick files → checked, uploaded with a progress bar, submitted for analysis;
// the list below is live (useJobs for the list, useJob per row for its per-unit progress).
import { useJob, useJobs } from '@sluice/react';
import { useEffect, useRef, useState } from 'react';
import { checkDocument, documentName, uploadWithProgress } from '../api.js';
import type { Jobs } from '../../jobs.js';
import { describeFailure } from '../failure.js';
import { useSession } from '../session.js';

type Analyze = Jobs['document.analyze'];

interface Upload {
  id: number;
  name: string;
  fraction: number;
  error?: string;
  jobId?: string;
}

/** The page a person opens to decide: the token from the job's `approval` progress. */
export const approvalHref = (approvePath: string): string =>
  `#/approve/${approvePath.split('/').pop() ?? ''}`;

export function useDocumentName(fileId: string | undefined): string {
  const { client } = useSession();
  const [name, setName] = useState('…');
  useEffect(() => {
    void documentName(client, fileId).then(setName);
  }, [client, fileId]);
  return name;
}

function DocumentRow(props: {
  id: string;
  version: string;
  fileId: string | undefined;
  createdAt: string;
}) {
  const job = useJob<Analyze>(props.id);
  const name = useDocumentName(props.fileId);
  const p = job.progress;
  const units = p?.units ?? 0;
  const done = job.unitsDone.length;
  const failure =
    job.state === 'failed' || job.state === 'dead_lettered'
      ? describeFailure(job.jobError, job.reason)
      : undefined;
  return (
    <tr data-doc={name} data-job={props.id} data-state={job.state ?? ''}>
      <td>
        <a href={`#/documents/${encodeURIComponent(props.id)}`}>{name}</a>
      </td>
      <td className="version" data-version={props.version}>
        {props.version}
      </td>
      <td>
        <span className={`state state-${job.state ?? 'loading'}`}>
          {job.state === 'needs_review' ? 'needs review' : (job.state ?? '…')}
        </span>
      </td>
      <td className="progress-cell">
        <progress max={units || 1} value={job.state === 'succeeded' ? units || 1 : done} />
        <span className="unit-progress" data-units-done={done} data-units={units}>
          {units > 0 ? `${done}/${units} units` : ''}
          {p && job.state === 'running' ? ` · ${p.label}: ${p.step}` : ''}
        </span>
        {job.state === 'waiting' && p?.approvePath && (
          <a className="approve-link" href={approvalHref(p.approvePath)}>
            Approval link
          </a>
        )}
        {failure && (
          <span className="cause" data-code={failure.code}>
            {failure.units[0]
              ? `${failure.units[0].unitKey}: ${failure.units[0].code} ${failure.units[0].message}`
              : `${failure.code}: ${failure.message}`}
          </span>
        )}
      </td>
      <td>{new Date(props.createdAt).toLocaleTimeString()}</td>
    </tr>
  );
}

export function Documents() {
  const { apiKey, client } = useSession();
  const { jobs, loading } = useJobs<Jobs, 'document.analyze'>({ kind: 'document.analyze' });
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [dragging, setDragging] = useState(false);
  const [requireApproval, setRequireApproval] = useState(false);

  const nextId = useRef(0);
  const update = (id: number, patch: Partial<Upload>) =>
    setUploads((u) => u.map((x) => (x.id === id ? { ...x, ...patch } : x)));

  async function addFiles(files: FileList | File[]) {
    for (const file of Array.from(files)) {
      const i = nextId.current++;
      setUploads((u) => [...u, { id: i, name: file.name, fraction: 0 }]);
      const problem = await checkDocument(file);
      if (problem) {
        update(i, { error: problem });
        continue;
      }
      try {
        const stored = await uploadWithProgress(apiKey, file, (fraction) =>
          update(i, { fraction }),
        );
        update(i, { fraction: 1 });
        const job = await client.submit(
          'document.analyze',
          { fileId: stored.id, filename: file.name, requireApproval },
          { fileIds: [stored.id] },
        );
        update(i, { jobId: job.id });
      } catch (error) {
        update(i, { error: (error as Error).message });
      }
    }
  }

  return (
    <section>
      <h2>Documents</h2>
      <label
        className={`dropzone ${dragging ? 'dragging' : ''}`}
        onDragOver={(e) => (e.preventDefault(), setDragging(true))}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          e.preventDefault();
          setDragging(false);
          void addFiles(e.dataTransfer.files);
        }}
      >
        Drop PDF, XLSX or CSV files here, or click to choose
        <input
          type="file"
          name="documents"
          multiple
          accept=".pdf,.xlsx,.csv"
          onChange={(e) => e.target.files && void addFiles(e.target.files)}
        />
      </label>
      <label className="option">
        <input
          type="checkbox"
          checked={requireApproval}
          onChange={(e) => setRequireApproval(e.target.checked)}
        />{' '}
        Ask for approval before the paid analysis
      </label>
      <ul className="uploads">
        {uploads.map((u) => (
          <li
            key={u.id}
            data-upload={u.name}
            data-upload-state={u.error ? 'error' : u.jobId ? 'submitted' : 'uploading'}
          >
            <span>{u.name}</span>
            {u.error ? (
              <span className="error" role="alert">
                {u.error}
              </span>
            ) : (
              <progress max={1} value={u.fraction} />
            )}
          </li>
        ))}
      </ul>
      {loading ? (
        <p>Loading…</p>
      ) : jobs.length === 0 ? (
        <p className="empty">No documents yet.</p>
      ) : (
        <table className="documents">
          <thead>
            <tr>
              <th>Document</th>
              <th title="the document.analyze version it was accepted with">Analyzer</th>
              <th>State</th>
              <th>Progress</th>
              <th>Uploaded</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((item) => (
              <DocumentRow
                key={item.view.id}
                id={item.view.id}
                version={item.view.version}
                fileId={item.view.fileIds[0]}
                createdAt={item.view.createdAt}
              />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
