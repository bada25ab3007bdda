/** E-mail addresses of a domain from what the scan saw: pages, SOA records, DMARC records. */

const EMAIL_RE = /[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,24}/g;

function decodeEntities(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_m, d: string) => String.fromCharCode(Number(d)))
    .replace(/&#x([0-9a-f]+);/gi, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
    .replace(/&commat;|&#64;/gi, '@')
    .replace(/&period;/gi, '.')
    .replace(/&amp;/g, '&');
}

/** True when the address belongs to the domain or one of its subdomains. */
export function isEmailOfDomain(email: string, domain: string): boolean {
  const host = email.split('@')[1]?.toLowerCase() ?? '';
  const d = domain.toLowerCase();
  return host === d || host.endsWith(`.${d}`);
}

/** Addresses in page text and `mailto:` links (URL-encoded and HTML-entity forms too). */
export function extractEmails(text: string, domain?: string): string[] {
  let t = decodeEntities(text);
  t = t.replace(/mailto:([^"'\s>?]+)/gi, (_m, addr: string) => {
    try {
      return ` ${decodeURIComponent(addr)} `;
    } catch {
      return ` ${addr} `;
    }
  });
  // Common obfuscations: "name [at] domain [dot] tld"
  t = t.replace(/\s*[[(]\s*at\s*[\])]\s*/gi, '@').replace(/\s*[[(]\s*dot\s*[\])]\s*/gi, '.');
  const found = new Set<string>();
  for (const m of t.matchAll(EMAIL_RE)) {
    const e = m[0]
      .toLowerCase()
      .replace(/^[._%+-]+/, '')
      .replace(/\.$/, '');
    if (/\.(png|jpe?g|gif|svg|webp|css|js)$/.test(e)) continue;
    if (domain && !isEmailOfDomain(e, domain)) continue;
    found.add(e);
  }
  return [...found].sort();
}

/** The responsible-person mailbox of an SOA record: `hostmaster.acme.test.` → `hostmaster@acme.test`. */
export function emailFromSoaRname(rname: string): string | undefined {
  const name = rname.trim().replace(/\.$/, '');
  let i = 0;
  let local = '';
  while (i < name.length) {
    const c = name[i] as string;
    if (c === '\\' && i + 1 < name.length) {
      local += name[i + 1];
      i += 2;
      continue;
    }
    if (c === '.') break;
    local += c;
    i++;
  }
  const domain = name.slice(i + 1);
  if (!local || !domain.includes('.')) return undefined;
  return `${local}@${domain}`.toLowerCase();
}

/** Report addresses of a DMARC record: `rua=mailto:a@x,mailto:b@y!10m; ruf=mailto:c@z`. */
export function emailsFromDmarc(record: string): string[] {
  const out = new Set<string>();
  for (const tag of record.split(';')) {
    const m = /^\s*(rua|ruf)\s*=\s*(.+)$/i.exec(tag);
    if (!m) continue;
    for (const uri of (m[2] as string).split(',')) {
      const u = /mailto:([^!\s]+)/i.exec(uri.trim());
      if (u) out.add((u[1] as string).toLowerCase());
    }
  }
  return [...out].sort();
}
