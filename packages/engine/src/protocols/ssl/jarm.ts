import { createHash, randomBytes, randomInt } from 'node:crypto';
import net from 'node:net';

/**
 * JARM, the active TLS server fingerprint (salesforce/jarm, as nuclei's `jarm()` computes it
 * through projectdiscovery's port): ten hand-built ClientHellos with different versions,
 * cipher orders, GREASE and ALPN lists; each ServerHello's cipher, version, ALPN and extension
 * types make up the fuzzy hash (62 hex characters, all zeros when nothing answers).
 */

type Version = 'TLS_1.1' | 'TLS_1.2' | 'TLS_1.3';
type Order = 'FORWARD' | 'REVERSE' | 'TOP_HALF' | 'BOTTOM_HALF' | 'MIDDLE_OUT';

interface Probe {
  version: Version;
  ciphers: 'ALL' | 'NO1.3';
  order: Order;
  grease: boolean;
  rareAlpn: boolean;
  support: '1.2_SUPPORT' | '1.3_SUPPORT' | 'NO_SUPPORT';
  extensionOrder: Order;
}

const hex = (s: string): Buffer[] => s.split(' ').map((h) => Buffer.from(h, 'hex'));

const ALL_CIPHERS = hex(
  '0016 0033 0067 c09e c0a2 009e 0039 006b c09f c0a3 009f 0045 00be 0088 00c4 009a c008 c009 c023 c0ac c0ae c02b c00a c024 c0ad c0af c02c c072 c073 cca9 1302 1301 cc14 c007 c012 c013 c027 c02f c014 c028 c030 c060 c061 c076 c077 cca8 1305 1304 1303 cc13 c011 000a 002f 003c c09c c0a0 009c 0035 003d c09d c0a1 009d 0041 00ba 0084 00c0 0007 0004 0005',
);
const TLS13_CIPHERS = new Set(['1301', '1302', '1303', '1304', '1305']);
const NO13_CIPHERS = ALL_CIPHERS.filter((c) => !TLS13_CIPHERS.has(c.toString('hex')));

/** The order the fuzzy hash numbers ciphers in (1-based, two hex digits). */
const HASH_CIPHERS =
  '0004 0005 0007 000a 0016 002f 0033 0035 0039 003c 003d 0041 0045 0067 006b 0084 0088 009a 009c 009d 009e 009f 00ba 00be 00c0 00c4 c007 c008 c009 c00a c011 c012 c013 c014 c023 c024 c027 c028 c02b c02c c02f c030 c060 c061 c072 c073 c076 c077 c09c c09d c09e c09f c0a0 c0a1 c0a2 c0a3 c0ac c0ad c0ae c0af cc13 cc14 cca8 cca9 1301 1302 1303 1304 1305'.split(
    ' ',
  );

// The reference implementation's list joins "spdy/3" and "h2" into one entry (a missing comma);
// the fingerprints in the wild are computed with it, so it is kept.
const ALPNS = hex(
  '08687474702f302e39 08687474702f312e30 08687474702f312e31 06737064792f31 06737064792f32 06737064792f33026832 03683263 026871',
);
const RARE_ALPNS = hex(
  '08687474702f302e39 08687474702f312e30 06737064792f31 06737064792f32 06737064792f33 03683263 026871',
);

const PROBES: Probe[] = [
  {
    version: 'TLS_1.2',
    ciphers: 'ALL',
    order: 'FORWARD',
    grease: false,
    rareAlpn: false,
    support: '1.2_SUPPORT',
    extensionOrder: 'REVERSE',
  },
  {
    version: 'TLS_1.2',
    ciphers: 'ALL',
    order: 'REVERSE',
    grease: false,
    rareAlpn: false,
    support: '1.2_SUPPORT',
    extensionOrder: 'FORWARD',
  },
  {
    version: 'TLS_1.2',
    ciphers: 'ALL',
    order: 'TOP_HALF',
    grease: false,
    rareAlpn: false,
    support: 'NO_SUPPORT',
    extensionOrder: 'FORWARD',
  },
  {
    version: 'TLS_1.2',
    ciphers: 'ALL',
    order: 'BOTTOM_HALF',
    grease: false,
    rareAlpn: true,
    support: 'NO_SUPPORT',
    extensionOrder: 'FORWARD',
  },
  {
    version: 'TLS_1.2',
    ciphers: 'ALL',
    order: 'MIDDLE_OUT',
    grease: true,
    rareAlpn: true,
    support: 'NO_SUPPORT',
    extensionOrder: 'REVERSE',
  },
  {
    version: 'TLS_1.1',
    ciphers: 'ALL',
    order: 'FORWARD',
    grease: false,
    rareAlpn: false,
    support: 'NO_SUPPORT',
    extensionOrder: 'FORWARD',
  },
  {
    version: 'TLS_1.3',
    ciphers: 'ALL',
    order: 'FORWARD',
    grease: false,
    rareAlpn: false,
    support: '1.3_SUPPORT',
    extensionOrder: 'REVERSE',
  },
  {
    version: 'TLS_1.3',
    ciphers: 'ALL',
    order: 'REVERSE',
    grease: false,
    rareAlpn: false,
    support: '1.3_SUPPORT',
    extensionOrder: 'FORWARD',
  },
  {
    version: 'TLS_1.3',
    ciphers: 'NO1.3',
    order: 'FORWARD',
    grease: false,
    rareAlpn: false,
    support: '1.3_SUPPORT',
    extensionOrder: 'FORWARD',
  },
  {
    version: 'TLS_1.3',
    ciphers: 'ALL',
    order: 'MIDDLE_OUT',
    grease: true,
    rareAlpn: false,
    support: '1.3_SUPPORT',
    extensionOrder: 'REVERSE',
  },
];

export function mungOrder<T>(items: T[], order: Order): T[] {
  const n = items.length;
  const half = Math.floor(n / 2);
  switch (order) {
    case 'FORWARD':
      return [...items];
    case 'REVERSE':
      return [...items].reverse();
    case 'BOTTOM_HALF':
      return items.slice(n % 2 === 1 ? half + 1 : half);
    case 'TOP_HALF':
      return [
        ...(n % 2 === 1 ? [items[half] as T] : []),
        ...mungOrder(mungOrder(items, 'REVERSE'), 'BOTTOM_HALF'),
      ];
    case 'MIDDLE_OUT': {
      const out: T[] = [];
      if (n % 2 === 1) {
        out.push(items[half] as T);
        for (let i = 1; i <= half; i++) out.push(items[half + i] as T, items[half - i] as T);
      } else for (let i = 1; i <= half; i++) out.push(items[half - 1 + i] as T, items[half - i] as T);
      return out;
    }
    default:
      return [...items];
  }
}

const grease = (): Buffer => {
  const b = randomInt(16) * 16 + 0x0a;
  return Buffer.from([b, b]);
};
const u16 = (n: number): Buffer => Buffer.from([(n >> 8) & 0xff, n & 0xff]);

function extensions(p: Probe, host: string): Buffer {
  const parts: Buffer[] = [];
  if (p.grease) parts.push(grease(), Buffer.from('0000', 'hex'));
  const name = Buffer.from(host, 'utf8');
  parts.push(
    Buffer.from('0000', 'hex'),
    u16(name.length + 5),
    u16(name.length + 3),
    Buffer.from([0]),
    u16(name.length),
    name,
  );
  parts.push(
    Buffer.from(
      '00170000' + '0001000101' + 'ff01000100' + '000a000a0008001d001700180019' + '000b00020100' + '00230000',
      'hex',
    ),
  );
  const alpn = Buffer.concat(mungOrder(p.rareAlpn ? RARE_ALPNS : ALPNS, p.extensionOrder));
  parts.push(Buffer.from('0010', 'hex'), u16(alpn.length + 2), u16(alpn.length), alpn);
  parts.push(Buffer.from('000d00140012040308040401050308050501080606010201', 'hex'));
  const share = Buffer.concat([
    ...(p.grease ? [grease(), Buffer.from('000100', 'hex')] : []),
    Buffer.from('001d0020', 'hex'),
    randomBytes(32),
  ]);
  parts.push(Buffer.from('0033', 'hex'), u16(share.length + 2), u16(share.length), share);
  parts.push(Buffer.from('002d00020101', 'hex'));
  if (p.version === 'TLS_1.3' || p.support === '1.2_SUPPORT') {
    const list = p.support === '1.2_SUPPORT' ? hex('0301 0302 0303') : hex('0301 0302 0303 0304');
    const versions = Buffer.concat([...(p.grease ? [grease()] : []), ...mungOrder(list, p.extensionOrder)]);
    parts.push(
      Buffer.from('002b', 'hex'),
      u16(versions.length + 1),
      Buffer.from([versions.length]),
      versions,
    );
  }
  const all = Buffer.concat(parts);
  return Buffer.concat([u16(all.length), all]);
}

export function clientHello(p: Probe, host: string): Buffer {
  const record = p.version === 'TLS_1.1' ? '0302' : p.version === 'TLS_1.2' ? '0303' : '0301';
  const hello = p.version === 'TLS_1.1' ? '0302' : '0303';
  let ciphers = mungOrder(p.ciphers === 'ALL' ? ALL_CIPHERS : NO13_CIPHERS, p.order);
  if (p.grease) ciphers = [grease(), ...ciphers];
  const suites = Buffer.concat(ciphers);
  const sessionId = randomBytes(32);
  const body = Buffer.concat([
    Buffer.from(hello, 'hex'),
    randomBytes(32),
    Buffer.from([sessionId.length]),
    sessionId,
    u16(suites.length),
    suites,
    Buffer.from([1, 0]),
    extensions(p, host),
  ]);
  const handshake = Buffer.concat([Buffer.from([1, 0]), u16(body.length), body]);
  return Buffer.concat([
    Buffer.from('16', 'hex'),
    Buffer.from(record, 'hex'),
    u16(handshake.length),
    handshake,
  ]);
}

/** `cipher|version|alpn|ext-types` of one ServerHello (`|||` for anything else). */
export function readServerHello(data: Buffer | undefined): string {
  try {
    if (!data || data.length < 44 || data[0] !== 22 || data[5] !== 2) return '|||';
    const counter = data[43] as number;
    const cipher = data.subarray(counter + 44, counter + 46).toString('hex');
    const version = data.subarray(9, 11).toString('hex');
    return `${cipher}|${version}|${readExtensions(data, counter)}`;
  } catch {
    return '|||';
  }
}

function readExtensions(data: Buffer, counter: number): string {
  if (data[counter + 47] === 11) return '|';
  const marker = data.subarray(counter + 50, counter + 53).toString('hex');
  if (marker === '0eac0b' || data.subarray(82, 85).toString('hex') === '0ff00b') return '|';
  let count = 49 + counter;
  const length = data.readUInt16BE(counter + 47);
  const maximum = length + (count - 1);
  const types: string[] = [];
  const values: Buffer[] = [];
  while (count < maximum) {
    if (count + 4 > data.length) throw new RangeError('short extension');
    types.push(data.subarray(count, count + 2).toString('hex'));
    const extLength = data.readUInt16BE(count + 2);
    values.push(data.subarray(count + 4, count + 4 + extLength));
    count += extLength + 4;
  }
  const alpnAt = types.indexOf('0010');
  const alpn = alpnAt >= 0 ? (values[alpnAt] as Buffer).subarray(3).toString('latin1') : '';
  return `${alpn}|${types.join('-')}`;
}

function cipherByte(cipher: string): string {
  if (cipher === '') return '00';
  const i = HASH_CIPHERS.indexOf(cipher);
  return (i < 0 ? HASH_CIPHERS.length + 1 : i + 1).toString(16).padStart(2, '0');
}

function versionByte(version: string): string {
  if (version === '') return '0';
  return 'abcdef'[Number(version.slice(3, 4))] ?? '0';
}

/** The fuzzy hash of the ten `cipher|version|alpn|ext` answers. */
export function jarmHash(answers: string[]): string {
  if (answers.every((a) => a === '|||')) return '0'.repeat(62);
  let fuzzy = '';
  let rest = '';
  for (const a of answers) {
    const [cipher = '', version = '', alpn = '', ext = ''] = a.split('|');
    fuzzy += cipherByte(cipher) + versionByte(version);
    rest += alpn + ext;
  }
  return fuzzy + createHash('sha256').update(rest).digest('hex').slice(0, 32);
}

/** Sends one ClientHello and reads the first answer (up to 1484 bytes, as the reference does). */
function probe(
  address: string,
  port: number,
  hello: Buffer,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Buffer | undefined | 'timeout'> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: address, port });
    let settled = false;
    const done = (v: Buffer | undefined | 'timeout') => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(v);
    };
    const onAbort = () => done(undefined);
    const timer = setTimeout(() => done('timeout'), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => socket.write(hello));
    socket.once('data', (d: Buffer) => done(d.subarray(0, 1484)));
    socket.once('error', () => done(undefined));
    socket.once('end', () => done(undefined));
  });
}

/**
 * The JARM fingerprint of a TLS service. `address` is where to connect (already checked
 * against the scope), `serverName` goes into the SNI. A time-out on any probe gives the
 * all-zero hash, as the reference does.
 */
export async function jarmFingerprint(
  address: string,
  port: number,
  serverName: string,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<string> {
  const answers: string[] = [];
  for (const p of PROBES) {
    const reply = await probe(
      address,
      port,
      clientHello(p, serverName),
      options.timeoutMs ?? 5000,
      options.signal,
    );
    if (reply === 'timeout') return jarmHash(PROBES.map(() => '|||'));
    answers.push(readServerHello(reply));
  }
  return jarmHash(answers);
}
