import { createRequire } from 'node:module';

/** A short, real privacy policy for Perimeter, rendered to PDF at build time (served under /pdf/). */
export const PRIVACY_POLICY: { title: string; updated: string; sections: [string, string][] } = {
  title: 'Perimeter — Privacy Policy',
  updated: 'Effective 1 November 2026',
  sections: [
    [
      'Who we are',
      'Perimeter is an external security-scanning service operated by the organisation that hosts this installation (the "operator"). The operator is the controller of the personal data described here. Contact the operator at the address given on the sign-in page or in your contract.',
    ],
    [
      'What we collect',
      'Account data: first name, last name, company, e-mail address, password (stored only as an argon2id hash), time zone, language and notification preferences. Security data: an encrypted two-factor secret, hashed recovery codes, refresh-token records and sign-in timestamps. Service data: the domains, hosts and networks you add, ownership-verification records, scan settings, schedules and scan results. Billing data: plan, invoices and, where a card is used, only the card brand and last four digits — full card numbers never reach our servers.',
    ],
    [
      'Leaked-credential findings',
      'When you scan a domain, Perimeter looks up e-mail addresses of that domain in known credential leaks. Matching records are stored encrypted, shown to you masked, and used only to inform you so that the affected accounts can be secured.',
    ],
    [
      'Why we use it',
      'To provide the service you asked for (contract), to keep accounts and scans secure and prevent abuse such as scanning targets you do not own (legitimate interest), to send the e-mails you chose — verification, password reset, scan finished, new critical or high findings — and to meet legal obligations such as bookkeeping.',
    ],
    [
      'Cookies and local storage',
      "We set one cookie, cookieConsent, which records that you accepted this notice (kept 150 days). The application keeps your session tokens, language and interface preferences in your browser's local storage. We use no advertising or third-party tracking cookies.",
    ],
    [
      'Sharing',
      'We do not sell personal data. We share it only with processors that run the service for us (hosting, e-mail delivery, payment processing) under contracts that protect it, or when the law requires it.',
    ],
    [
      'Retention',
      'Account and service data are kept while your account is open. When you close your account we delete your targets, findings and profile within 30 days, except records we must keep by law (for example invoices). Security logs are kept for up to 12 months.',
    ],
    [
      'Security',
      'Data is encrypted in transit; passwords are hashed with argon2id; two-factor secrets and leaked passwords are encrypted at rest; every query is limited to the owning account. Two-factor authentication is required for every account.',
    ],
    [
      'Your rights',
      'You may access, correct, export or delete your personal data, object to or restrict its processing, and withdraw consent at any time. Most data can be changed on the Account page; for anything else contact the operator. You may also complain to your data-protection authority.',
    ],
    [
      'Changes',
      'We will announce material changes to this policy in the application before they take effect.',
    ],
  ],
};

type TPdfMake = {
  setFonts: (fonts: Record<string, Record<string, string>>) => void;
  setUrlAccessPolicy: (cb: (url: string) => boolean) => void;
  setLocalAccessPolicy: (cb: (path: string) => boolean) => void;
  createPdf: (doc: object) => { getBuffer: () => Promise<Buffer> };
};

export async function renderPrivacyPolicyPdf(): Promise<Buffer> {
  const require = createRequire(import.meta.url);
  const pdfmake = require('pdfmake') as TPdfMake;
  const fonts = require('pdfmake/fonts/Roboto.js') as Record<string, Record<string, string>>;
  const fontDir = require.resolve('pdfmake/fonts/Roboto.js').replace(/Roboto\.js$/, '');
  pdfmake.setFonts(fonts);
  pdfmake.setUrlAccessPolicy(() => false);
  pdfmake.setLocalAccessPolicy((p) => p.startsWith(fontDir));
  const doc = {
    info: { title: PRIVACY_POLICY.title, author: 'Perimeter' },
    pageMargins: [56, 56, 56, 56],
    defaultStyle: { font: 'Roboto', fontSize: 10.5, lineHeight: 1.3 },
    content: [
      { text: PRIVACY_POLICY.title, fontSize: 20, bold: true, margin: [0, 0, 0, 4] },
      { text: PRIVACY_POLICY.updated, color: '#555555', margin: [0, 0, 0, 16] },
      ...PRIVACY_POLICY.sections.flatMap(([heading, body]) => [
        { text: heading, fontSize: 13, bold: true, margin: [0, 10, 0, 4] },
        { text: body },
      ]),
    ],
  };
  return pdfmake.createPdf(doc).getBuffer();
}
