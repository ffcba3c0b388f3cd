import type { SpanExporter } from '@opentelemetry/sdk-trace-node';
import packageJson from '../../package.json' with { type: 'json' };
import { ConfigError } from '../config.js';
import { markTracingOn } from './spans.js';

/**
 * The OpenTelemetry SDK, configured by the standard OTEL_* variables, started by a serving process
 * before anything else. Off unless an exporter is asked for: OTEL_TRACES_EXPORTER=otlp (or
 * console), or an OTLP endpoint given (OTEL_EXPORTER_OTLP_ENDPOINT, _TRACES_ENDPOINT) with no
 * OTEL_TRACES_EXPORTER. `none`, or OTEL_SDK_DISABLED=true, keeps it off whatever else is set.
 * The exporter, the sampler (OTEL_TRACES_SAMPLER, parent-based always-on by default), the batch
 * processor (OTEL_BSP_*) and the resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) read their
 * own variables. The SDK's modules are loaded only when tracing is on: a process without it starts
 * as fast as before.
 */

export interface Tracing {
  /** Exports what is still batched, then stops. */
  shutdown(): Promise<void>;
}

type Env = Record<string, string | undefined>;

const PROTOCOLS = ['http/protobuf', 'http/json'] as const;

async function otlpExporter(env: Env): Promise<SpanExporter> {
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf';
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  if (protocol === 'http/protobuf') return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
  throw new ConfigError(`OTEL_EXPORTER_OTLP_PROTOCOL: ${protocol} is not supported (one of ${PROTOCOLS.join(', ')})`);
}

/** The exporters asked for: none when tracing stays off. */
function exportersOf(env: Env): string[] {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return [];
  const named = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim()).filter(Boolean);
  const names = named.length > 0 ? named : env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? ['otlp'] : [];
  if (names.includes('none')) return [];
  for (const name of names) if (name !== 'otlp' && name !== 'console') throw new ConfigError(`OTEL_TRACES_EXPORTER: ${name} is not supported (otlp, console or none)`);
  return names;
}

/** Starts tracing when the environment asks for it; undefined when it stays off (the API's no-op tracer). */
export async function startTracing(env: Env): Promise<Tracing | undefined> {
  const names = exportersOf(env);
  if (names.length === 0) return undefined;
  const { BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider } = await import('@opentelemetry/sdk-trace-node');
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } = await import('@opentelemetry/resources');
  const exporters = await Promise.all(names.map((name) => (name === 'otlp' ? otlpExporter(env) : new ConsoleSpanExporter())));
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the package's name and version.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': packageJson.name, 'service.version': packageJson.version }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: exporters.map((exporter) => new BatchSpanProcessor(exporter)) });
  provider.register();
  markTracingOn();
  return { shutdown: () => provider.shutdown() };
}
