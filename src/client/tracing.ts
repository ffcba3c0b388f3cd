/**
 * The caller's trace, carried to the service: a W3C `traceparent` (and its `tracestate`) when the
 * caller has an active span in OpenTelemetry's API. The API is an optional peer dependency, loaded
 * on the first call: without it installed, or without an active span, nothing is added.
 */

type OpenTelemetryApi = typeof import('@opentelemetry/api');

let loading: Promise<OpenTelemetryApi | undefined> | undefined;

const hex2 = (flags: number) => flags.toString(16).padStart(2, '0');

/** The headers that carry the active span's context: none when there is none. */
export async function traceHeaders(): Promise<Record<string, string>> {
  const api = await (loading ??= import('@opentelemetry/api').catch(() => undefined));
  const span = api?.trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId, traceFlags, traceState } = span.spanContext();
  if (!api!.isSpanContextValid({ traceId, spanId, traceFlags })) return {};
  // Written from the span itself, so it is sent whether or not the caller registered a propagator.
  const state = traceState?.serialize();
  return { traceparent: `00-${traceId}-${spanId}-${hex2(traceFlags)}`, ...(state ? { tracestate: state } : {}) };
}
