import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { ulid } from 'ulid';
import type { ServiceContext } from '../context.js';
import { ApiError, envelope, errorEnvelopeSchema, internal, invalid } from './errors.js';

export const BODY_LIMIT = 256 * 1024;

/**
 * Request ids unique across processes without a random draw per request: a random per-process
 * prefix (a ULID, so ids sort by process start) and a counter.
 */
const REQUEST_ID_PREFIX = `req_${ulid()}`;
let requestCounter = 0;
const nextRequestId = (): string => `${REQUEST_ID_PREFIX}${(requestCounter++).toString(36).padStart(6, '0')}`;

/** A capability adds its routes to the app; it gets the shared context and nothing global. */
export type Capability = (app: FastifyInstance, ctx: ServiceContext) => Promise<void> | void;

/** Maps anything thrown in a request to the SPEC 7 envelope; nothing fastify-shaped leaks out. */
export function toApiError(error: FastifyError | ApiError | Error): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new ApiError(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${BODY_LIMIT} bytes.`);
  }
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new ApiError(415, 'INVALID_SCHEMA', 'The request content type is not accepted on this route.');
  }
  if (fastifyError.validation) {
    const first = fastifyError.validation[0];
    const where = first?.instancePath ? `${fastifyError.validationContext ?? 'body'}${first.instancePath}` : (fastifyError.validationContext ?? 'body');
    return invalid(`${where} ${first?.message ?? 'is invalid'}`);
  }
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    // Malformed JSON, an empty JSON body, a bad header: all refusals of the request's shape.
    return invalid(status === 400 ? 'The request body is not valid JSON.' : 'The request is malformed.');
  }
  return internal();
}

export async function buildApp(ctx: ServiceContext, capabilities: readonly Capability[]): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    genReqId: nextRequestId,
    // Error bodies are ours alone; fastify's own defaults would leak its shape.
    return503OnClosing: false,
    // Record keys and data keys are shown verbatim (SPEC 2.3), `__proto__` included: JSON.parse
    // makes it an own property, and validation reads only own properties.
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
    ajv: { customOptions: { allErrors: false, coerceTypes: false, removeAdditional: false, useDefaults: false } },
  });

  app.addSchema(errorEnvelopeSchema);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Owner API',
        version: '0.1.0',
        description: 'Hosted human handoff: an agent creates a Session, a person answers it through a private link.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Owner key, developer API key or trial management credential' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });

  // Callback-style hooks: these run on every request, and a promise each is measurable.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store, no-transform');
    done(null, payload);
  });

  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error as Error);
    if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
    void reply
      .code(apiError.status)
      .headers(apiError.headers)
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(envelope(apiError, request.id)));
  });

  app.setNotFoundHandler((request, reply) => {
    const error = new ApiError(404, 'NOT_FOUND', 'No such route.');
    void reply.code(404).type('application/json; charset=utf-8').send(JSON.stringify(envelope(error, request.id)));
  });

  for (const capability of capabilities) await app.register(async (scope) => capability(scope, ctx));
  return app;
}
