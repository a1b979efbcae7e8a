// Which content types an upload may be stored under: a positive list, never a list of what to
// refuse. A refusal list misses the next alias (`application/x-javascript`, `text/ecmascript`,
// `application/xslt+xml`, `application/vnd.wap.xhtml+xml`, …); a type nobody listed is refused
// until someone decides it is safe.
//
// The default list covers documents, spreadsheets, data, archives, images, audio and video, and
// `application/octet-stream` for bytes of no known type (served back as an attachment with
// `X-Content-Type-Options: nosniff`, so a browser downloads them and never renders them).
// `uploads.allowedTypes` replaces it (`image/*` matches a family), but a type a browser would run
// or render as a page — HTML and XHTML, SVG, any XML or XSL, anything with `script` in its name,
// Flash, HTML components, WebAssembly — is refused whatever a list says.
//
//   const allowed = [...DEFAULT_UPLOAD_TYPES, 'model/gltf-binary'];   // createGateway({ uploads: { allowedTypes: allowed } })

export const DEFAULT_UPLOAD_TYPES: readonly string[] = [
  'application/octet-stream',
  // documents and data
  'application/pdf',
  'text/plain',
  'text/csv',
  'text/tab-separated-values',
  'text/markdown',
  'application/json',
  'application/x-ndjson',
  // spreadsheets, word processing and slides (OOXML, legacy Office, OpenDocument)
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  // browsers on Windows also send this one for .csv files
  'application/vnd.ms-excel',
  'application/msword',
  'application/vnd.ms-powerpoint',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.presentation',
  // archives
  'application/zip',
  'application/gzip',
  // images (no SVG: it runs script)
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/bmp',
  'image/tiff',
  'image/heic',
  'image/heif',
  // audio
  'audio/mpeg',
  'audio/mp4',
  'audio/aac',
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/ogg',
  'audio/flac',
  'audio/webm',
  'audio/opus',
  // video
  'video/mp4',
  'video/webm',
  'video/ogg',
  'video/quicktime',
  'video/x-matroska',
  'video/mpeg',
];

/** Active types not caught by the name rules below. */
const ACTIVE_TYPES = new Set([
  'text/x-component',
  'text/vnd.wap.wml',
  'application/x-shockwave-flash',
  'application/futuresplash',
  'application/wasm',
  'application/hta',
  'multipart/x-mixed-replace',
]);

/** Whether a browser would run `type` or render it as a page (`type` is lower case, no params). */
export function isActiveType(type: string): boolean {
  if (ACTIVE_TYPES.has(type)) return true;
  const subtype = type.slice(type.indexOf('/') + 1);
  return (
    subtype.includes('html') ||
    subtype.includes('script') ||
    subtype.includes('xsl') ||
    subtype.startsWith('xml') ||
    subtype.endsWith('+xml') ||
    subtype.startsWith('svg')
  );
}

/** Whether an upload may be stored as `type` (lower case, no parameters). */
export function isStoredType(type: string, allow: readonly string[] | undefined): boolean {
  if (isActiveType(type)) return false;
  return (allow ?? DEFAULT_UPLOAD_TYPES).some((entry) => {
    const a = entry.toLowerCase();
    return a === type || (a.endsWith('/*') && type.startsWith(a.slice(0, -1)));
  });
}
