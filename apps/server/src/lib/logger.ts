import pino, { type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        '*.password',
        '*.password1',
        '*.password2',
        '*.refresh',
        '*.access',
      ],
      censor: '[redacted]',
    },
  });
}
