export * from './dialects.js';
