// `@sluice/gateway/testing` (repository tests only, never published): the seeded gateway bugs,
// for suites in other packages that run a real gateway and must prove they catch them.
export { GATEWAY_SEEDED_BUGS, gatewayHooksFromEnv, type GatewaySeededBug } from './seeded-bugs.js';
