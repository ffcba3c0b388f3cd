import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import type { ServiceContext } from '../serviceContext.js';
import { AJV_OPTIONS } from './ajv.js';
import { jsonBody } from './bodies.js';
import { answerClientError, answerOutsideRoutes } from './clientErrors.js';
import { completeContract, declaredRefusals, taggedSchema, type ContractDocument, type ContractPart } from './contract.js';
import { OutageLog, isDatabaseUnreachable } from './database.js';
import { errorEnvelopeSchema, type ApiError } from './errors.js';
import { toApiError } from './faults.js';
import { drainOf } from './drain.js';
import { edgeHeaders, nextRequestId } from './headers.js';
import { HTTP_LIMITS, type HttpTimeouts } from './limits.js';
import { assertOneMeaning, declares, type RefusalAnswer } from './refusal.js';
import { JSON_CACHE_CONTROL, notFound, refusalWriter, sendRefusal, type ErrorPages } from './refusals.js';
import { traceRequests, tracingOn } from '../tracing/index.js';
import { heldReads } from '../waits/index.js';

/** A capability adds its routes to the app; it gets the shared context and nothing global. */
export type Routes = (app: FastifyInstance, ctx: ServiceContext) => Promise<void> | void;

/** What the edge takes of a capability (src/capability.ts): its routes, its refusals, its own error pages. */
export interface EdgePart {
  routes?: Routes;
  refusals?: Readonly<Record<string, RefusalAnswer<never>>>;
  errorPages?: ErrorPages;
  /** What the contract document holds of it beyond its routes' schemas (the webhooks it sends). */
  contract?: ContractPart;
}

export interface AppOptions {
  /** Tests shorten them to see a slow client cut off. */
  timeouts?: HttpTimeouts;
  /**
   * Told of every refusal a route answers that its contract does not declare (`refuses`): tests
   * fail on it (test/support/app.ts), so a route's declared refusals are the ones it answers.
   */
  undeclared?: (route: string, refusal: ApiError) => void;
}

/** The part of the request a validation error is about, to name the refused value's path. */
function validatedPart(request: FastifyRequest, error: FastifyError): unknown {
  switch (error.validationContext) {
    case 'body':
      return request.body;
    case 'params':
      return request.params;
    case 'querystring':
      return request.query;
    case 'headers':
      return request.headers;
    default:
      return undefined;
  }
}

export async function buildApp(ctx: ServiceContext, parts: readonly EdgePart[], options: AppOptions = {}): Promise<FastifyInstance> {
  assertOneMeaning(parts.map((part) => part.refusals ?? {}));
  const write = refusalWriter(parts.flatMap((part) => part.errorPages ?? []));
  const timeouts = options.timeouts ?? HTTP_LIMITS;
  const headers = edgeHeaders(ctx.config.publicOrigin);
  const { trustProxy } = ctx.config;
  const app: FastifyInstance = Fastify({
    // request.ip, the client of per-client limits: the address the last trusted proxy saw.
    // fastify takes a hop count only as a function.
    trustProxy: typeof trustProxy === 'number' ? trustProxy > 0 && ((_address: string, hop: number) => hop < trustProxy) : trustProxy,
    loggerInstance: ctx.log as FastifyBaseLogger,
    bodyLimit: HTTP_LIMITS.bodyBytes,
    genReqId: nextRequestId,
    // Error bodies are ours alone; fastify's own defaults would leak its shape.
    return503OnClosing: false,
    ajv: { customOptions: AJV_OPTIONS },
    routerOptions: { maxParamLength: HTTP_LIMITS.paramLength },
    // A client that sends its request slowly, or a body shorter than its Content-Length, is cut
    // off with 408 instead of holding a connection.
    requestTimeout: timeouts.requestTimeoutMs,
    http: {
      headersTimeout: timeouts.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, timeouts.headersTimeoutMs),
      // Routes never read Host; without it Node itself would answer 400 outside the envelope.
      requireHostHeader: false,
    },
    // A URL fastify cannot route (a malformed % escape, a segment too long) is refused in the envelope.
    frameworkErrors: (error, request, reply) => void sendRefusal(reply.headers(headers(request.id)), toApiError(error), write),
    clientErrorHandler: (error, socket) => answerClientError(error, socket, headers, write),
  });
  answerOutsideRoutes(app.server, headers, write);

  app.addSchema(errorEnvelopeSchema);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Owner API',
        version: '0.1.0',
        description: 'Hosted human handoff: an agent creates a Session, a person answers it through a private link.',
        // As the repository's LICENSE and the client package's manifest.
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // Each deployment serves the API at its own origin; the document is the same for all of them.
      servers: [
        {
          url: '{origin}',
          description: 'A deployment of the service.',
          variables: {
            origin: { default: 'http://127.0.0.1:8080', description: "The deployment's public origin (SVC_PUBLIC_ORIGIN); `npm start` serves at this default." },
          },
        },
      ],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Owner key, developer API key or trial management credential' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    // Each route's operation() and the webhooks the service sends, applied once the document is built.
    transformObject: (documents) => {
      if (!('openapiObject' in documents)) throw new Error('The contract is an OpenAPI 3 document.');
      return completeContract(documents.openapiObject as unknown as ContractDocument, parts.flatMap((part) => part.contract ?? [])) as unknown as typeof documents.openapiObject;
    },
  });

  // Bodies are JSON (I-JSON, UTF-8) unless a capability takes another type in its own scope.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      done(null, jsonBody(body as Buffer, request.headers['content-type']));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  if (tracingOn()) traceRequests(app);

  // Callback-style hooks: these run on every request, and a promise each is measurable.
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(headers(request.id));
    done();
  });

  app.addHook('onResponse', (request, reply, done) => {
    // A request held on purpose (Prefer: wait, docs/waiting.md) lasts as long as it waited: its
    // duration is no latency of the service, and svc_waits_* count it instead.
    if (!reply.hasHeader('preference-applied')) ctx.metrics.observeRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  // Once the app drains or closes, each answer closes its connection: a kept-alive connection
  // would otherwise hold the server open until its keep-alive timeout.
  const drain = drainOf(app.server);
  app.addHook('preClose', (done) => {
    drain.draining = true;
    done();
  });

  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', JSON_CACHE_CONTROL);
    if (drain.draining) reply.header('connection', 'close');
    done(null, payload);
  });

  const outage = new OutageLog(ctx.store.pool, ctx.log);
  app.addHook('onClose', (_instance, done) => {
    outage.close();
    done();
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const refusal = toApiError(error, validatedPart(request, error));
    const declared = declaredRefusals(request.routeOptions.schema);
    if (declared && !declares(declared, refusal)) options.undeclared?.(`${request.method} ${request.routeOptions.url}`, refusal);
    if (isDatabaseUnreachable(error)) outage.report(error);
    else if (refusal.status >= 500) request.log.error({ err: error }, 'request failed');
    void sendRefusal(reply, refusal, write);
  });

  app.setNotFoundHandler((_request, reply) => void sendRefusal(reply, notFound(), write));

  // Before the capabilities' scopes, so that each sees the one registry of held requests.
  await app.register(heldReads, { ctx });
  for (const { routes, contract } of parts) {
    if (!routes) continue;
    await app.register(async (scope) => {
      // Each operation of the capability's routes is listed under its tag: a route says nothing of it.
      scope.addHook('onRoute', (route) => {
        route.schema = taggedSchema(`${String(route.method)} ${route.url}`, route.schema, contract?.tag);
      });
      await routes(scope, ctx);
    });
  }
  return app;
}
