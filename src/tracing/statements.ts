import { SpanKind, context } from '@opentelemetry/api';
import pg from 'pg';
import { endSpan, tracer } from './spans.js';

/**
 * A span for every statement, made where pg sends it: the connection's own query (a pool's query
 * comes here too). Only installed while tracing is on; statements carry no values, only the text.
 */

/** The statement's first word (SELECT, WITH, BEGIN…): what the span is named. */
const operationOf = (text: string): string => /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';

export function tracedClient(Base: typeof pg.Client): typeof pg.Client {
  return class TracedClient extends Base {
    // pg's overloads are many; this forwards every one unchanged, a callback wrapped to end the span.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    override query(config: any, ...rest: any[]): any {
      // A stream (COPY) ends on its own events, not a callback or a promise: not measured.
      if (config !== null && typeof config === 'object' && typeof config.submit === 'function') return super.query(config, ...(rest as [unknown[]]));
      const text = String(typeof config === 'string' ? config : (config?.text ?? ''));
      const span = tracer.startSpan(operationOf(text), {
        kind: SpanKind.CLIENT,
        attributes: { 'db.system.name': 'postgresql', 'db.operation.name': operationOf(text), 'db.query.text': text },
      });
      const last: unknown = rest.at(-1);
      if (typeof last === 'function') {
        rest[rest.length - 1] = (error: unknown, result: unknown) => {
          endSpan(span, error);
          (last as (error: unknown, result: unknown) => void)(error, result);
        };
        return super.query(config, ...(rest as [unknown[]]));
      }
      const result = super.query(config, ...(rest as [unknown[]])) as Promise<unknown>;
      result.then(
        () => endSpan(span),
        (error: unknown) => endSpan(span, error),
      );
      return result;
    }
  };
}

/**
 * A pool whose waiting callers keep their trace: pg-pool calls back a caller queued for a
 * connection from whichever release frees one, in that releaser's context.
 */
export class TracedPool extends pg.Pool {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override connect(callback?: any): any {
    return typeof callback === 'function' ? super.connect(context.bind(context.active(), callback)) : super.connect();
  }
}
