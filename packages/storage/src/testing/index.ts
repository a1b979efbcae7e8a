export * from './dialects.js';
export * from './workerd.js';
