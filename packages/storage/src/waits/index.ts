export * from './wait-rows.js';
export * from './register-wait.js';
export * from './signals.js';
export * from './due-waits.js';
export * from './children-outcomes.js';
export * from './children.js';
export * from './tokens.js';
export * from './ready-value.js';
