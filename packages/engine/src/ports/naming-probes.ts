/**
 * Probes of naming and directory services: DNS over TCP (version.bind) and LDAP (the root
 * DSE), each written from the RFCs (cited beside it).
 */
import { cpe, withVersion } from './service-cpe.ts';
import type { RecognisedService } from './service-recognition.ts';

// --- DNS over TCP (RFC 1035 4.2.2; CHAOS TXT version.bind)

export function dnsVersionPayload(): Buffer {
  const msg = Buffer.concat([
    Buffer.from([0x50, 0x4d, 0x00, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]),
    Buffer.from('\x07version\x04bind\x00', 'latin1'),
    Buffer.from([0, 16, 0, 3]),
  ]);
  const len = Buffer.alloc(2);
  len.writeUInt16BE(msg.length);
  return Buffer.concat([len, msg]);
}

/** Skips a (possibly compressed) name; returns the offset after it. */
function skipName(msg: Buffer, i: number): number {
  while (i < msg.length) {
    const b = msg[i] as number;
    if (b === 0) return i + 1;
    if ((b & 0xc0) === 0xc0) return i + 2;
    i += b + 1;
  }
  return i;
}

/** A DNS response to our query (same id, QR set); the TXT answer names the software. */
export function recogniseDnsVersion(data: Buffer): RecognisedService | null {
  if (data.length < 14) return null;
  const len = data.readUInt16BE(0);
  const msg = data.subarray(2, 2 + len);
  if (msg.length < 12 || msg[0] !== 0x50 || msg[1] !== 0x4d || !((msg[2] as number) & 0x80)) return null;
  const out: RecognisedService = { service: 'domain' };
  const qd = msg.readUInt16BE(4);
  const an = msg.readUInt16BE(6);
  let i = 12;
  for (let q = 0; q < qd; q++) i = skipName(msg, i) + 4;
  let text: string | undefined;
  for (let a = 0; a < an && i < msg.length; a++) {
    i = skipName(msg, i);
    if (i + 10 > msg.length) break;
    const type = msg.readUInt16BE(i);
    const rdlen = msg.readUInt16BE(i + 8);
    const rdata = msg.subarray(i + 10, i + 10 + rdlen);
    if (type === 16 && rdata.length) text = rdata.subarray(1, 1 + (rdata[0] as number)).toString('latin1');
    i += 10 + rdlen;
  }
  if (!text) return out;
  return recogniseDnsSoftware(text) ?? out;
}

export function recogniseDnsSoftware(text: string): RecognisedService | null {
  const rules: [RegExp, string, string, string?][] = [
    [/^(\d+\.\d+\.\d+)(?:-|$|\s)/, 'ISC BIND', 'BIND', 'isc:bind'],
    [/^BIND (\d+\.\d+\.\d+)/i, 'ISC BIND', 'BIND', 'isc:bind'],
    [/^dnsmasq-(\d+\.\d+(?:\.\d+)?)/i, 'dnsmasq', 'Dnsmasq', 'thekelleys:dnsmasq'],
    [/^unbound (\d+\.\d+\.\d+)/i, 'Unbound', 'Unbound', 'nlnetlabs:unbound'],
    [/^NSD (\d+\.\d+\.\d+)/i, 'NSD', 'NSD', 'nlnetlabs:nsd'],
    [/^PowerDNS (?:Authoritative Server |Recursor )?(\d+\.\d+\.\d+)/i, 'PowerDNS', 'PowerDNS', undefined],
    [/^Knot DNS (\d+\.\d+\.\d+)/i, 'Knot DNS', 'Knot DNS', 'nic:knot_dns'],
  ];
  for (const [re, product, tech, cpeName] of rules) {
    const m = re.exec(text.trim());
    if (m) return withVersion({ service: 'domain', product, tech }, m[1], cpeName);
  }
  return null;
}

// --- LDAP v3 (RFC 4511): a base search of the root DSE, BER encoded

function ber(tag: number, content: Buffer): Buffer {
  const len = content.length < 0x80 ? [content.length] : [0x81, content.length];
  return Buffer.concat([Buffer.from([tag, ...len]), content]);
}
const berStr = (tag: number, s: string) => ber(tag, Buffer.from(s, 'latin1'));

export function ldapRootDsePayload(): Buffer {
  const attrs = [
    'objectClass',
    'vendorName',
    'vendorVersion',
    'supportedLDAPVersion',
    'isGlobalCatalogReady',
  ];
  const search = ber(
    0x63,
    Buffer.concat([
      berStr(0x04, ''),
      Buffer.from([0x0a, 1, 0]), // scope baseObject
      Buffer.from([0x0a, 1, 0]), // neverDerefAliases
      Buffer.from([0x02, 1, 0]), // sizeLimit
      Buffer.from([0x02, 1, 5]), // timeLimit
      Buffer.from([0x01, 1, 0]), // typesOnly false
      berStr(0x87, 'objectClass'), // present filter
      ber(0x30, Buffer.concat(attrs.map((a) => berStr(0x04, a)))),
    ]),
  );
  return ber(0x30, Buffer.concat([Buffer.from([0x02, 1, 1]), search]));
}

/** BER length at `i`: [length, offset of the content]. */
function berLength(data: Buffer, i: number): [number, number] {
  const b = data[i] as number;
  if (!(b & 0x80)) return [b, i + 1];
  let len = 0;
  for (let k = 1; k <= (b & 0x7f); k++) len = len * 256 + (data[i + k] as number);
  return [len, i + 1 + (b & 0x7f)];
}

/** First value of an attribute in a search entry: OCTET STRING name, SET { OCTET STRING value }. */
function ldapAttribute(data: Buffer, name: string): string | undefined {
  const key = Buffer.concat([Buffer.from([0x04, name.length]), Buffer.from(name, 'latin1')]);
  const at = data.indexOf(key);
  if (at < 0) return undefined;
  let i = at + key.length;
  if (data[i] !== 0x31) return undefined;
  [, i] = berLength(data, i + 1);
  if (data[i] !== 0x04) return undefined;
  const [len, start] = berLength(data, i + 1);
  return data.subarray(start, start + len).toString('utf8');
}

/** An LDAPMessage (SEQUENCE, messageID 1) carrying a search entry (0x64) or result (0x65). */
export function recogniseLdap(data: Buffer): RecognisedService | null {
  if (data.length < 7 || data[0] !== 0x30) return null;
  let i = 1;
  const first = data[i] as number;
  i += first & 0x80 ? 1 + (first & 0x7f) : 1;
  if (data[i] !== 0x02) return null;
  i += 2 + (data[i + 1] as number);
  const op = data[i];
  if (op !== 0x64 && op !== 0x65 && op !== 0x78) return null;
  const text = data.toString('latin1');
  const out: RecognisedService = { service: 'ldap' };
  if (text.includes('OpenLDAProotDSE')) {
    return { service: 'ldap', product: 'OpenLDAP', tech: 'OpenLDAP', cpe: cpe('openldap:openldap') };
  }
  if (text.includes('isGlobalCatalogReady'))
    return { service: 'ldap', product: 'Microsoft Active Directory LDAP' };
  const vendor = ldapAttribute(data, 'vendorName');
  const version = ldapAttribute(data, 'vendorVersion');
  if (vendor) out.product = vendor;
  if (version) {
    const v = /(\d+\.\d+(?:\.\d+)*)/.exec(version)?.[1];
    if (v) out.version = v;
    if (/389-Directory/i.test(version)) out.product = '389 Directory Server';
  }
  return out;
}
