import { ROOT_CONTEXT, context, propagation, type Context } from '@opentelemetry/api';

/**
 * Tracing as the rest of the service sees it: the OpenTelemetry API, W3C trace context in and out.
 * Off unless sdk.ts started an exporter; what is measurable even as a no-op (a hook on every
 * request, a wrapper on every statement) is installed only when it is on.
 */

export { endSpan, inSpan, tracer } from '../../eventstore/index.js';

let on = false;

/** Whether spans are recorded and exported in this process. */
export const tracingOn = (): boolean => on;

/** Said once by the SDK's start. */
export function markTracingOn(): void {
  on = true;
}

/** The active context as a `traceparent` header, for a job to remember; undefined when there is none to join. */
export function traceParent(active: Context = context.active()): string | undefined {
  if (!on) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier);
  return carrier.traceparent;
}

/** The headers that carry the active context to a receiver: none when tracing is off. */
export function traceHeaders(): Record<string, string> {
  const parent = traceParent();
  return parent ? { traceparent: parent } : {};
}

/** The context a remembered `traceparent` names; the root (a trace of its own) when there is none. */
export const contextOf = (parent: string | null | undefined): Context => (parent ? propagation.extract(ROOT_CONTEXT, { traceparent: parent }) : ROOT_CONTEXT);
