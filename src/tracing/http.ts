import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Context } from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { tracer } from './spans.js';

/**
 * A span for every request, the child of the caller's `traceparent` when it sends one. It is made
 * active for the handler from preHandler on: the body is parsed on the socket's own callbacks,
 * which would lose a context set earlier. Its name and attributes carry the route's template, never
 * the path (a human link's path is its token).
 */
export function traceRequests(app: FastifyInstance): void {
  const contexts = new WeakMap<FastifyRequest, Context>();
  app.addHook('onRequest', (request, _reply, done) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const route = request.routeOptions.url ?? 'unrouted';
    const span = tracer.startSpan(
      `${request.method} ${route}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'http.route': route } },
      parent,
    );
    contexts.set(request, trace.setSpan(parent, span));
    done();
  });
  app.addHook('preHandler', (request, _reply, done) => {
    const active = contexts.get(request);
    if (active) context.with(active, done);
    else done();
  });
  const end = (request: FastifyRequest, reply: FastifyReply | undefined) => {
    const active = contexts.get(request);
    if (!active) return;
    contexts.delete(request);
    const span = trace.getSpan(active)!;
    if (reply) {
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    } else span.setAttribute('svc.request.aborted', true);
    span.end();
  };
  app.addHook('onResponse', (request, reply, done) => {
    end(request, reply);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    end(request, undefined);
    done();
  });
}
