// The front end's wire: the typed client (jobs, review, dead letters, live hooks) plus the
// example's own tenant routes. Uploads go through XMLHttpRequest to the gateway's upload route
// because fetch reports no upload progress; the body and headers are the ones the client sends.
import { createSluiceClient, type FileView, type SluiceClient } from '@sluice/client';
import { UPLOAD_PATH } from '@sluice/contracts/wire';
import { FORMAT_BY_EXTENSION, sniffFormat } from '../analysis/sniff.js';
import type { Jobs } from '../jobs.js';

export type Client = SluiceClient<Jobs>;
export const MAX_UPLOAD_MB = 10;

export function makeClient(apiKey: string): Client {
  return createSluiceClient<Jobs>({ url: location.origin, apiKey });
}

export async function api<T>(apiKey: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  if (!res.ok) throw new Error(json?.error?.message ?? `HTTP ${res.status}`);
  return json as T;
}

/** Refuses what the analysis cannot read before a byte is sent: a clear reason, or undefined. */
export async function checkDocument(file: File): Promise<string | undefined> {
  const ext = file.name.split('.').pop()?.toLowerCase() ?? '';
  const expected = FORMAT_BY_EXTENSION[ext];
  if (!expected) return `${file.name}: only PDF, XLSX and CSV documents can be analysed`;
  if (file.size === 0) return `${file.name}: the file is empty`;
  if (file.size > MAX_UPLOAD_MB * 1024 * 1024) {
    return `${file.name}: ${(file.size / 1024 / 1024).toFixed(1)} MB is over the ${MAX_UPLOAD_MB} MB limit`;
  }
  const head = new Uint8Array(await file.slice(0, 512).arrayBuffer());
  const actual = sniffFormat(head);
  if (actual !== expected) {
    return `${file.name}: not a valid ${expected.toUpperCase()} file (its content is ${actual ? actual.toUpperCase() : 'binary data'})`;
  }
  return undefined;
}

export function uploadWithProgress(
  apiKey: string,
  file: File,
  onProgress: (fraction: number) => void,
): Promise<FileView> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', UPLOAD_PATH);
    xhr.setRequestHeader('authorization', `Bearer ${apiKey}`);
    xhr.setRequestHeader('content-type', file.type || 'application/octet-stream');
    xhr.setRequestHeader('x-filename', encodeURIComponent(file.name));
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      const body = JSON.parse(xhr.responseText || 'null') as FileView & {
        error?: { message: string };
      };
      if (xhr.status >= 200 && xhr.status < 300) resolve(body);
      else reject(new Error(body?.error?.message ?? `upload failed: HTTP ${xhr.status}`));
    };
    xhr.onerror = () => reject(new Error('upload failed: the connection was lost'));
    xhr.send(file);
  });
}

/** A job's document name, read once per file. */
const names = new Map<string, Promise<string>>();
export function documentName(client: Client, fileId: string | undefined): Promise<string> {
  if (!fileId) return Promise.resolve('—');
  let p = names.get(fileId);
  if (!p) {
    p = client.files.get(fileId).then(
      (f) => f.filename ?? fileId,
      () => fileId,
    );
    names.set(fileId, p);
  }
  return p;
}
