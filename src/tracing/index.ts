/**
 * Tracing with OpenTelemetry (docs/operations.md#tracing): the SDK started from the environment
 * (sdk.ts), and what the rest of the service uses through the API alone (spans.ts), the requests'
 * and the statements' spans installed only while it is on.
 */
export { contextOf, endSpan, inSpan, traceHeaders, traceParent, tracer, tracingOn } from './spans.js';
export { traceRequests } from './http.js';
export { TracedPool, tracedClient } from './statements.js';
export { startTracing, type Tracing } from './sdk.js';
