import pino, { type Logger } from 'pino';

/**
 * Capability tokens (the human link's, the sign-in link's) never reach a log. A request is logged
 * by the route it matched, whatever spelling reached it (`/%73/...`, absolute-form, a query): a
 * path parameter named `token` is a capability and is redacted, the others are logged as routed.
 * A request no route matched is logged by its path as a router would read it (decoded, without
 * scheme, host or query, slashes collapsed) with the capability paths redacted.
 */
const CAPABILITY_PARAMS = new Set(['token']);
const CAPABILITY_PATHS = /^(\/s\/|\/app\/confirm\/)[^/]*/i;
const REDACTED = '[redacted]';

/** What the request serializer reads of fastify's request. */
interface LoggedRequest {
  method: string;
  url: string;
  id: string;
  routeOptions?: { url?: string };
  params?: unknown;
}

/** The path of a request no route matched, as it may be logged. */
export function loggablePath(url: string): string {
  const target = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').split(/[?#]/)[0] ?? '';
  let path: string;
  try {
    path = decodeURIComponent(target);
  } catch {
    return '[malformed]';
  }
  return path.replace(/\/{2,}/g, '/').replace(CAPABILITY_PATHS, `$1${REDACTED}`);
}

/** The path of a request as it may be logged: its route's, with capability parameters redacted. */
function loggedPath(request: LoggedRequest): string {
  const route = request.routeOptions?.url;
  if (route === undefined) return loggablePath(request.url);
  const params = (request.params ?? {}) as Record<string, unknown>;
  return route.replace(/:([A-Za-z0-9_]+)/g, (whole, name: string) => (CAPABILITY_PARAMS.has(name) ? REDACTED : String(params[name] ?? whole)));
}

export function createLogger(options: { level?: string; destination?: pino.DestinationStream } = {}): Logger {
  return pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? 'info',
      // Belt and braces: nothing we log carries these, and if something ever does, it is censored.
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'headers.authorization',
          'headers.cookie',
          '*.secret',
          '*.signing_secret',
          '*.management_credential',
          '*.token',
          '*.ownerKey',
          '*.dataKeys',
          '*.receiptKeys',
          // URLs that may carry a password.
          '*.smtpUrl',
          '*.databaseUrl',
        ],
        censor: '[redacted]',
      },
      serializers: {
        req: (req: LoggedRequest) => ({ method: req.method, path: loggedPath(req), id: req.id }),
        res: (res: { statusCode: number }) => ({ status: res.statusCode }),
        err: pino.stdSerializers.err,
      },
    },
    options.destination,
  );
}
