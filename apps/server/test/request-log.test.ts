import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createLogger, requestLinesOf } from '../src/lib/logger.ts';
import { RequestLines } from '../src/server/request-log.ts';

/** An app of a few routes logging at `level` into lines, with Fastify's own or our request lines. */
async function logOf(level: string, ours: boolean) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  const logger = createLogger(level, sink);
  const twin = requestLinesOf(logger);
  expect(twin).toBeDefined();
  let n = 0;
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: () => `r${++n}`,
    ...(ours && twin ? { logController: new RequestLines(twin) } : {}),
  });
  app.post('/api/things/:id', async (request) => {
    request.log.info({ body: request.body }, 'handler line');
    return { ok: true };
  });
  app.get('/api/account/confirm-email/verify/:key/', async () => ({ ok: true }));
  app.get('/api/fails', async () => {
    throw new Error('boom');
  });
  await app.inject({
    method: 'POST',
    url: '/api/things/7?email=alice%40example.com',
    headers: { authorization: 'Bearer s3cr3t-t0k3n', cookie: 'sid=c00kie' },
    payload: { password: 'hunter2-s3cr3t', name: 'x' },
  });
  await app.inject({ method: 'GET', url: '/api/account/confirm-email/verify/k3y-in-p4th/' });
  await app.inject({ method: 'GET', url: '/api/fails' });
  await app.close();
  // The time and the response time differ run to run; everything else must not.
  return lines.map((l): Record<string, unknown> => {
    const { time: _t, responseTime, ...rest } = JSON.parse(l) as Record<string, unknown>;
    return { ...rest, ...(responseTime === undefined ? {} : { responseTime: typeof responseTime }) };
  });
}

describe('request log lines', () => {
  it('are the lines Fastify writes, field for field, with the same redaction of the rest', async () => {
    const ours = await logOf('info', true);
    expect(ours).toEqual(await logOf('info', false));
    const messages = ours.map((l) => l.msg);
    expect(messages.filter((m) => m === 'incoming request')).toHaveLength(3);
    expect(messages.filter((m) => m === 'request completed')).toHaveLength(3);
    expect(ours[0]).toEqual({
      level: 30,
      pid: process.pid,
      hostname: expect.any(String),
      reqId: 'r1',
      req: { method: 'POST', url: '/api/things/7', route: '/api/things/:id', id: 'r1' },
      msg: 'incoming request',
    });
    expect(ours.find((l) => l.msg === 'request completed')).toEqual({
      level: 30,
      pid: process.pid,
      hostname: expect.any(String),
      reqId: 'r1',
      res: { statusCode: 200 },
      responseTime: 'number',
      msg: 'request completed',
    });
    // The handler's own line still goes through the redaction.
    expect(ours.find((l) => l.msg === 'handler line')?.body).toEqual({
      password: '[redacted]',
      name: 'x',
    });
    const out = JSON.stringify(ours);
    for (const secret of ['alice', 's3cr3t-t0k3n', 'c00kie', 'hunter2', 'k3y-in-p4th'])
      expect(out, secret).not.toContain(secret);
  });

  it('follow the level', async () => {
    expect((await logOf('warn', true)).map((l) => l.msg)).toEqual(
      (await logOf('warn', false)).map((l) => l.msg),
    );
    expect((await logOf('warn', true)).some((l) => l.msg === 'incoming request')).toBe(false);
  });
});
