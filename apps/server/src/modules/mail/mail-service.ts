import nodemailer, { type Transporter } from 'nodemailer';
import type { Db } from '../../db/client.ts';
import type { Logger } from '../../lib/logger.ts';
import {
  insertMail,
  listExpiredLinkMail,
  listRecentMail,
  markMail,
  type OutboxRow,
  replaceMailBody,
} from './mail-repo.ts';
import { type RenderedMail, redactLinks } from './mail-templates.ts';

export interface Mailer {
  send(to: string, kind: string, mail: RenderedMail): Promise<void>;
  close(): void;
}

/**
 * Every mail is recorded in `mail_outbox`. With SMTP_URL it is also delivered; without it the
 * outbox is the delivery: `cli mail outbox` prints it, links and all, and the log says a mail is
 * waiting (its text without links and without the address: a log reader gets no live secret).
 * A live link (verification key, reset token) stays in the stored body only while it is needed:
 * it is taken out once the mail was delivered by SMTP, read from the outbox or expired — a backup
 * or a replica of the database holds none.
 */
export function createMailer(opts: { db: Db; logger: Logger; smtpUrl?: string; from: string }): Mailer {
  const transport: Transporter | undefined = opts.smtpUrl
    ? nodemailer.createTransport(opts.smtpUrl, { from: opts.from })
    : undefined;
  return {
    async send(to, kind, mail) {
      const { linksExpireAt, ...content } = mail;
      const row = await insertMail(opts.db, { to, kind, ...content, linksExpireAt: linksExpireAt ?? null });
      if (!transport) {
        opts.logger.info(
          { mailId: row.id, kind, subject: mail.subject },
          `mail kept in the outbox (no SMTP_URL); its links: npm run cli -- mail outbox\n${redactLinks(mail.text)}`,
        );
        await markMail(opts.db, row.id, 'outbox');
        return;
      }
      try {
        await transport.sendMail({ to, subject: mail.subject, text: mail.text, html: mail.html });
        await markMail(opts.db, row.id, 'sent');
        if (linksExpireAt) await replaceMailBody(opts.db, row.id, redactedBody(content));
      } catch (err) {
        // A mail server that is down must not fail the request that caused the mail.
        opts.logger.error({ err, mailId: row.id, kind }, 'mail delivery failed; kept in the outbox');
        await markMail(opts.db, row.id, 'failed', String(err));
      }
    },
    close: () => transport?.close(),
  };
}

export const redactedBody = (mail: { text: string; html: string }) => ({
  text: redactLinks(mail.text),
  html: redactLinks(mail.html),
});

/** Takes the links out of stored mails whose links expired; returns how many. */
export async function redactExpiredMail(db: Db): Promise<number> {
  const rows = await listExpiredLinkMail(db);
  for (const row of rows) await replaceMailBody(db, row.id, redactedBody(row));
  return rows.length;
}

/**
 * The latest mails, oldest first, as `cli mail outbox` prints them. Read once: a live link
 * returned here is taken out of the stored mail.
 */
export async function readOutbox(db: Db, limit: number): Promise<OutboxRow[]> {
  const rows = (await listRecentMail(db, limit)).reverse();
  for (const row of rows)
    if (row.linksExpireAt && !row.redactedAt) await replaceMailBody(db, row.id, redactedBody(row));
  return rows;
}
