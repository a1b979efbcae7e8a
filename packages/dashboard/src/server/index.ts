// @sluice/dashboard: the operator UI's built assets and the two ways to serve them: mounted on
// the gateway's own Hono app (same origin), or on a server of its own that proxies the API.
export {
  DEFAULT_WEB_ROOT,
  isDashboardBuilt,
  loadAssets,
  type Assets,
  type AssetResponse,
} from './assets.js';
export { mountDashboard, normalisePath, type DashboardOptions } from './mount.js';
export { serveDashboard, type RunningDashboard, type StandaloneOptions } from './standalone.js';
