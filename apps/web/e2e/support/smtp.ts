import { SMTPServer } from 'smtp-server';

export type TMail = { to: string[]; raw: string; text: string };

/** Decodes quoted-printable bodies so links survive soft line breaks. */
export function decodeQuotedPrintable(input: string): string {
  const joined = input.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const ch = joined[i]!;
    if (ch === '=' && /^[0-9A-F]{2}$/i.test(joined.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(joined.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(ch, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** A real SMTP server on 127.0.0.1 that keeps every message it receives. */
export async function startSmtp(): Promise<{
  port: number;
  mails: TMail[];
  waitFor: (to: string, pattern: RegExp, timeoutMs?: number) => Promise<RegExpExecArray>;
  close: () => Promise<void>;
}> {
  const mails: TMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
        mails.push({ to, raw, text: decodeQuotedPrintable(raw).replace(/&amp;/g, '&') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  async function waitFor(to: string, pattern: RegExp, timeoutMs = 20_000): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    const seen = new Set<TMail>();
    while (Date.now() < deadline) {
      for (const mail of mails) {
        if (seen.has(mail) || !mail.to.includes(to.toLowerCase())) continue;
        const match = pattern.exec(mail.text);
        if (match) {
          mails.splice(mails.indexOf(mail), 1);
          return match;
        }
        seen.add(mail);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(
      `No mail to ${to} matching ${pattern} within ${timeoutMs} ms (got ${mails.length} mail(s))`,
    );
  }

  return { port, mails, waitFor, close: () => new Promise<void>((r) => server.close(() => r())) };
}
