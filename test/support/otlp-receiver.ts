import { createServer } from 'node:http';
import { closeNow, listenOnLoopback } from './servers.js';

/**
 * An OTLP/HTTP trace collector double on loopback: it accepts `POST /v1/traces` in the JSON
 * encoding (a process exporting with OTEL_EXPORTER_OTLP_PROTOCOL=http/json) and keeps every span.
 */

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** Each attribute's value as sent (stringValue, intValue, boolValue…), unwrapped. */
  attributes: Record<string, unknown>;
  /** The resource's service.name. */
  service: unknown;
}

export interface OtlpReceiver {
  /** http://127.0.0.1:<port>/v1/traces: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** How many export requests arrived, whatever they held. */
  requests: number;
  close(): Promise<void>;
}

interface KeyValue {
  key: string;
  value: Record<string, unknown>;
}

interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ spans?: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: KeyValue[] }> }>;
  }>;
}

const attributesOf = (list: KeyValue[] = []): Record<string, unknown> => Object.fromEntries(list.map(({ key, value }) => [key, Object.values(value)[0]]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const receiver = { spans: [] as ReceivedSpan[], requests: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      receiver.requests++;
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !req.headers['content-type']?.startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest;
      for (const { resource, scopeSpans } of body.resourceSpans ?? []) {
        const service = attributesOf(resource?.attributes)['service.name'];
        for (const { spans } of scopeSpans ?? []) {
          for (const span of spans ?? []) {
            receiver.spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              attributes: attributesOf(span.attributes),
              service,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const port = await listenOnLoopback(server);
  return Object.assign(receiver, {
    endpoint: `http://127.0.0.1:${port}/v1/traces`,
    close: () => closeNow(server),
  });
}
