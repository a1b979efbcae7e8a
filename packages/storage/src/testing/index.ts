export * from './dialects.js';
export * from '../blobs/testing/node-fixtures.js';
