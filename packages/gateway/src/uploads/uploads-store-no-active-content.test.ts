// Uploads are stored only under a type from a positive list, and never under a type a browser
// would run or render as a page. The bug this catches: the gateway refused a short list of active
// types (text/html, image/svg+xml, text/javascript, application/javascript, application/xml, …)
// and stored everything else, so `application/x-javascript`, `text/ecmascript`,
// `application/xslt+xml` or `application/vnd.wap.xhtml+xml` were stored although the README says
// JavaScript and XML never are. Types are judged after parameters are dropped and case folded.

import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type GatewayFixture } from '../testing/fixture.js';
import { decideType } from './upload-guard.js';
import { parseContentType } from './uploads.js';

const bytes = (...parts: (string | number[])[]): Uint8Array<ArrayBuffer> =>
  Uint8Array.from(
    parts.flatMap((p) => (typeof p === 'string' ? [...p].map((c) => c.charCodeAt(0)) : p)),
  );
const TEXT = bytes('some words, nothing more');
const PNG = bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

/** Declared types a browser would run or render as active content: never stored. */
const ACTIVE = [
  'text/html',
  'Text/HTML; charset=utf-8',
  'application/xhtml+xml',
  'application/vnd.wap.xhtml+xml',
  'text/vnd.wap.wml',
  'image/svg+xml',
  'IMAGE/SVG+XML',
  'text/xml',
  'application/xml',
  'text/xml-external-parsed-entity',
  'application/xslt+xml',
  'text/xsl',
  'application/rss+xml',
  'application/atom+xml',
  'application/mathml+xml',
  'application/rdf+xml',
  'text/javascript',
  'TEXT/JavaScript ; charset=UTF-8',
  'application/javascript',
  'application/x-javascript',
  'text/ecmascript',
  'application/ecmascript',
  'text/jscript',
  'text/vbscript',
  'text/livescript',
  'text/x-component',
  'application/x-shockwave-flash',
  'multipart/x-mixed-replace; boundary=x',
  'application/wasm',
  'application/hta',
];

/** Declared types outside the stored list (not active, but nothing the examples need). */
const UNLISTED = ['application/x-unknown', 'application/x-msdownload', 'font/woff2', 'text/rtf'];

/** Declared type, the bytes, and the type stored. */
const STORED: [string, Uint8Array<ArrayBuffer>, string][] = [
  ['application/pdf', bytes('%PDF-1.7\n'), 'application/pdf'],
  ['text/plain', TEXT, 'text/plain'],
  ['text/plain; charset=utf-8', TEXT, 'text/plain'],
  ['text/csv', bytes('a,b\n1,2\n'), 'text/csv'],
  ['Text/CSV; charset=UTF-8', bytes('a,b\n1,2\n'), 'text/csv'],
  ['application/json', bytes('{"a":1}'), 'application/json'],
  [
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    bytes([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]),
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ],
  ['application/vnd.ms-excel', bytes('a,b\n'), 'application/vnd.ms-excel'],
  ['application/zip', bytes([0x50, 0x4b, 0x03, 0x04, 0]), 'application/zip'],
  ['image/png', PNG, 'image/png'],
  ['image/jpeg', bytes([0xff, 0xd8, 0xff, 0xe0]), 'image/jpeg'],
  ['image/webp', bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 '), 'image/webp'],
  ['audio/mpeg', bytes('ID3', [3, 0, 0]), 'audio/mpeg'],
  ['audio/wav', bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt '), 'audio/wav'],
  ['video/mp4', bytes([0, 0, 0, 0x18], 'ftypisom'), 'video/mp4'],
  ['video/webm', bytes([0x1a, 0x45, 0xdf, 0xa3, 0]), 'video/webm'],
  ['application/octet-stream', bytes([1, 2, 3, 4, 5]), 'application/octet-stream'],
  ['application/octet-stream', PNG, 'image/png'],
  ['', TEXT, 'application/octet-stream'],
];

const judged = (declared: string, prefix: Uint8Array, allow?: readonly string[]) => {
  const decided = decideType(parseContentType(declared), prefix, allow);
  return typeof decided === 'string' ? decided : `refused ${decided.details?.status as number}`;
};

it('refuses every active type, with parameters and in any case, whatever an allow-list says', () => {
  const wide = ['text/*', 'application/*', 'image/*', 'multipart/*', 'text/html', 'image/svg+xml'];
  for (const declared of ACTIVE) {
    expect([declared, judged(declared, TEXT)]).toEqual([declared, 'refused 415']);
    expect([declared, judged(declared, TEXT, wide)]).toEqual([declared, 'refused 415']);
  }
});

it('stores only listed types: the documents, media and data the examples upload', () => {
  for (const declared of UNLISTED) {
    expect([declared, judged(declared, TEXT)]).toEqual([declared, 'refused 415']);
  }
  for (const [declared, prefix, stored] of STORED) {
    expect([declared, judged(declared, prefix)]).toEqual([declared, stored]);
  }
  // An operator's list replaces the default one (wildcards allowed).
  expect(judged('font/woff2', TEXT, ['font/*'])).toBe('font/woff2');
  expect(judged('text/plain', TEXT, ['image/*'])).toBe('refused 415');
});

describeEachDialect('uploads store no active content', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx()); // the default stored types
  });
  afterAll(async () => {
    await f?.close();
  });
  const upload = (body: Uint8Array<ArrayBuffer>, type: string) =>
    fetch(`${f.url}/v1/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${f.keyA}`, ...(type ? { 'content-type': type } : {}) },
      body,
    });

  it('answers 415 to every active or unlisted type and stores nothing', async () => {
    const before = await f.counts();
    // One after another: each refusal closes its connection before reading the body.
    const answers = [];
    for (const type of [...ACTIVE, ...UNLISTED]) {
      const res = await upload(bytes('<script>alert(1)</script>'), type);
      answers.push([
        type,
        res.status,
        ((await res.json()) as { error: { code: string } }).error.code,
      ]);
    }
    expect(answers).toEqual([...ACTIVE, ...UNLISTED].map((t) => [t, 415, 'BAD_REQUEST']));
    expect(await f.counts()).toEqual(before);
  });

  it('stores the listed types under the type judged', async () => {
    for (const [declared, body, stored] of STORED) {
      const res = await upload(body, declared);
      expect([declared, res.status]).toEqual([declared, 201]);
      expect(((await res.json()) as { contentType: string }).contentType).toBe(stored);
    }
  });
});
