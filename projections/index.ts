export type { Projection } from './projection.js';
export { applyAll } from './projection.js';
export { AsyncProjector, catchUpOnce, rebuild } from './runner.js';
