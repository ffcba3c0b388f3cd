import pino, { type Logger } from 'pino';

/** Path segments that are capabilities: the human link and the sign-in link never reach a log. */
const CAPABILITY_PATHS = /^(\/s\/|\/app\/confirm\/)[^/?#]*/;

/** The path as it may be logged: capability tokens replaced, query dropped. */
export function loggablePath(url: string): string {
  const path = url.split('?')[0] ?? '';
  return path.replace(CAPABILITY_PATHS, '$1[redacted]');
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
        req: (req: { method: string; url: string; id: string }) => ({ method: req.method, path: loggablePath(req.url), id: req.id }),
        res: (res: { statusCode: number }) => ({ status: res.statusCode }),
        err: pino.stdSerializers.err,
      },
    },
    options.destination,
  );
}
