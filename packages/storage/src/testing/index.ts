export * from './dialects.js';
export * from './workerd.js';
export * from '../blobs/testing/node-fixtures.js';
export * from './retention-seed.js';
export * from './test-jobs.js';
