import { SpanKind, SpanStatusCode, context, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';

/**
 * Spans through the OpenTelemetry API alone: until a process registers an SDK (src/tracing/sdk.ts)
 * the tracer is the API's no-op one, and a span costs a call that records nothing.
 */

export const tracer = trace.getTracer('svc-handoff');

interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The context to start in: the trace a job remembers; the active one when absent. */
  parent?: Context;
}

/** Ends a span: a thrown error is recorded on it and sets its status. */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined && error !== null) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  }
  span.end();
}

/** `work` inside a span that is active for it (what it starts is its child), ended when it settles. */
export function inSpan<T>(name: string, work: (span: Span) => Promise<T>, options: SpanOptions = {}): Promise<T> {
  return tracer.startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, options.parent ?? context.active(), async (span) => {
    try {
      const result = await work(span);
      endSpan(span);
      return result;
    } catch (error) {
      endSpan(span, error);
      throw error;
    }
  });
}
