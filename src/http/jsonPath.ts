/** Paths as refusals write them: declared once, in src/client/jsonpath.ts (the published package words its tools' refusals with them too). */
export { child, pointerSegments } from '../client/jsonpath.js';
