import { SMTPServer } from 'smtp-server';
import { idsOfName, plainAddress, RAW_LIMIT, truncate } from './oob-fns.ts';
import { type Listener, listening } from './oob-net.ts';
import type { Recorder } from './oob-recorder.ts';

/**
 * An SMTP listener that accepts mail for any address under the zone (nothing else: other
 * recipients are refused, so it relays nothing), keeps at most RAW_LIMIT bytes of the message and
 * records one interaction per mail when a recipient's domain carries a live id.
 */
export async function startSmtp(
  host: string,
  port: number,
  zone: string,
  recorder: Recorder,
): Promise<Listener> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    banner: 'Perimeter out-of-band interaction server',
    size: 1024 * 1024,
    socketTimeout: 15_000,
    onRcptTo(address, _session, callback) {
      const domain = address.address.split('@').pop()?.toLowerCase() ?? '';
      if (domain !== zone && !domain.endsWith(`.${zone}`))
        return callback(new Error('550 relay not permitted'));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (c: Buffer) => {
        if (size < RAW_LIMIT) chunks.push(c);
        size += c.length;
      });
      stream.on('end', () => {
        // Read the envelope before answering: smtp-server resets it for the next mail.
        const rcpt = session.envelope.rcptTo.map((r) => r.address);
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        const ids = rcpt.flatMap((a) => idsOfName(a.split('@').pop() ?? '', zone));
        callback();
        if (!ids.length) return;
        const head = `HELO ${session.hostNameAppearsAs}\r\nMAIL FROM:<${from}>\r\n${rcpt.map((a) => `RCPT TO:<${a}>`).join('\r\n')}\r\nDATA\r\n`;
        void recorder.record({
          ids,
          protocol: 'smtp',
          remoteAddress: plainAddress(session.remoteAddress),
          rawRequest: truncate(head + Buffer.concat(chunks).toString('latin1')),
          rawResponse: '250 OK: message accepted',
        });
      });
    },
  });
  server.on('error', () => {});
  return {
    protocol: 'smtp',
    address: await listening(server.server, port, host),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
