import type { TLanguage } from '@perimeter/contracts';

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
  /** Set when the mail carries a live secret link: when that link stops working. */
  linksExpireAt?: Date;
}

const SECRET_LINK = /\/account\/(confirm-email\/verify|password\/reset\/confirm)\/[^\s"'<]+/g;

/** The mail with its secret links made useless: what the database keeps once the mail is out. */
export function redactLinks(body: string): string {
  return body.replace(SECRET_LINK, '/account/$1/[removed]');
}

interface ActionMail {
  subject: string;
  greeting: (name: string) => string;
  body: string;
  action: string;
  footer: string;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A plain, accessible mail with one call to action; the link is also printed as text. */
export function renderActionMail(
  t: ActionMail,
  name: string,
  link: string,
  linksExpireAt?: Date,
): RenderedMail {
  const text = `${t.greeting(name)}\n\n${t.body}\n\n${t.action}: ${link}\n\n${t.footer}\n`;
  const html = `<!doctype html><html><body style="font-family:Arial,sans-serif;line-height:1.5;color:#1a2027">
<p>${escapeHtml(t.greeting(name))}</p><p>${escapeHtml(t.body)}</p>
<p><a href="${escapeHtml(link)}" style="background:#1565c0;color:#fff;padding:10px 16px;border-radius:6px;text-decoration:none">${escapeHtml(t.action)}</a></p>
<p style="font-size:13px;color:#555">${escapeHtml(link)}</p><p style="font-size:13px;color:#555">${escapeHtml(t.footer)}</p>
</body></html>`;
  return { subject: t.subject, text, html, ...(linksExpireAt ? { linksExpireAt } : {}) };
}

export const MAIL_TEXTS: Record<
  'verifyEmail' | 'passwordReset' | 'accountLocked',
  Record<TLanguage, ActionMail>
> = {
  accountLocked: {
    en: {
      subject: 'Sign-ins to your Perimeter account were paused',
      greeting: (n) => `Hello ${n},`,
      body: 'Someone entered a wrong password or code for your Perimeter account many times, possibly from several addresses. Sign-ins to it are paused for a while; your password has not been changed.',
      action: 'If it was not you, choose a new password',
      footer: 'If it was you, wait a few minutes and try again.',
    },
    ru: {
      subject: 'Входы в вашу учётную запись Perimeter приостановлены',
      greeting: (n) => `Здравствуйте, ${n}!`,
      body: 'Кто-то много раз ввёл неверный пароль или код для вашей учётной записи Perimeter, возможно с разных адресов. Входы в неё временно приостановлены; пароль не менялся.',
      action: 'Если это были не вы, задайте новый пароль',
      footer: 'Если это были вы, подождите несколько минут и попробуйте снова.',
    },
  },
  verifyEmail: {
    en: {
      subject: 'Confirm your e-mail address for Perimeter',
      greeting: (n) => `Hello ${n},`,
      body: 'Please confirm your e-mail address to finish creating your Perimeter account. The link is valid for 3 days and works once.',
      action: 'Confirm e-mail address',
      footer: 'If you did not create an account, ignore this message.',
    },
    ru: {
      subject: 'Подтвердите адрес электронной почты для Perimeter',
      greeting: (n) => `Здравствуйте, ${n}!`,
      body: 'Подтвердите адрес электронной почты, чтобы завершить регистрацию в Perimeter. Ссылка действует 3 дня и только один раз.',
      action: 'Подтвердить адрес',
      footer: 'Если вы не регистрировались, просто проигнорируйте это письмо.',
    },
  },
  passwordReset: {
    en: {
      subject: 'Reset your Perimeter password',
      greeting: (n) => `Hello ${n},`,
      body: 'Someone asked to reset the password of your Perimeter account. The link is valid for 1 hour and works once.',
      action: 'Choose a new password',
      footer: 'If it was not you, ignore this message: your password stays as it is.',
    },
    ru: {
      subject: 'Сброс пароля Perimeter',
      greeting: (n) => `Здравствуйте, ${n}!`,
      body: 'Поступил запрос на сброс пароля вашей учётной записи Perimeter. Ссылка действует 1 час и только один раз.',
      action: 'Задать новый пароль',
      footer: 'Если это были не вы, просто проигнорируйте письмо: пароль останется прежним.',
    },
  },
};
