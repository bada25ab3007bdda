import {
  type CipherGCMTypes,
  constants,
  createCipheriv,
  createHmac,
  publicEncrypt,
  randomBytes,
  randomInt,
} from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import ipaddr from 'ipaddr.js';
import { DslRuntimeError, type DslValue, toDslNumber, toDslString } from './dsl-functions.ts';
import { formatDateTime, timeArg } from './dsl-time.ts';
import { generateJavaGadget } from './java-gadget.ts';

/**
 * The rest of nuclei's helper functions (projectdiscovery/dsl) that the community corpus
 * uses: time, HMAC/JWT/AES, archives, padding and random addresses. Binary results are
 * strings of bytes (latin1), as `gzip()` returns them.
 */
type DslFunction = { min: number; max: number; fn: (args: DslValue[]) => DslValue };

const str = (a: DslValue[], i: number): string => (a[i] === undefined ? '' : toDslString(a[i] as DslValue));
const num = (a: DslValue[], i: number): number => toDslNumber(a[i] as DslValue);

const base64Url = (b: Buffer): string => b.toString('base64url');

const JWT_HMAC: Record<string, string> = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' };

/** HS256/384/512 and the `none` variants (`none`, `None`, `NONE`, …); others need a key file. */
export function generateJwt(json: string, alg: string, secret: string, maxAge?: DslValue): string {
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(json) as Record<string, unknown>;
  } catch {
    throw new DslRuntimeError('generate_jwt: invalid JSON claims');
  }
  if (maxAge !== undefined) {
    const now = Math.floor(Date.now() / 1000);
    claims = { ...claims, iat: now, exp: Math.floor(timeArg(maxAge).getTime() / 1000) };
  }
  const isNone = alg === '' || alg.toLowerCase() === 'none';
  const upper = alg.toUpperCase();
  const hmacAlg = JWT_HMAC[upper];
  if (!isNone && !hmacAlg) throw new DslRuntimeError(`generate_jwt: unsupported algorithm '${alg}'`);
  const header = base64Url(Buffer.from(JSON.stringify({ alg: isNone ? alg || 'none' : upper, typ: 'JWT' })));
  const payload = base64Url(Buffer.from(JSON.stringify(claims)));
  const signing = `${header}.${payload}`;
  if (isNone) return `${signing}.`;
  return `${signing}.${base64Url(
    createHmac(hmacAlg as string, secret)
      .update(signing)
      .digest(),
  )}`;
}

const HMAC_ALGS: Record<string, string> = {
  sha1: 'sha1',
  'sha-1': 'sha1',
  sha256: 'sha256',
  'sha-256': 'sha256',
  sha512: 'sha512',
  'sha-512': 'sha512',
};

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const b of data) c = (CRC_TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A ZIP archive of (name, content) pairs, deflated, as Go's archive/zip writes it. */
export function zipArchive(entries: [string, Buffer][]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offsetAt = 0;
  for (const [name, content] of entries) {
    const nameBytes = Buffer.from(name, 'utf8');
    const packed = deflateRawSync(content);
    const crc = crc32(content);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(content.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(content.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offsetAt, 42);
    locals.push(local, nameBytes, packed);
    centrals.push(central, nameBytes);
    offsetAt += local.length + nameBytes.length + packed.length;
  }
  const centralDir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralDir.length, 12);
  end.writeUInt32LE(offsetAt, 16);
  return Buffer.concat([...locals, centralDir, end]);
}

/** A random address inside one of the CIDRs (IPv4 or IPv6). */
export function randomIp(cidrs: string[]): string {
  const cidr = cidrs[randomInt(cidrs.length)] as string;
  let range: [ipaddr.IPv4 | ipaddr.IPv6, number];
  try {
    range = ipaddr.parseCIDR(cidr);
  } catch {
    throw new DslRuntimeError(`rand_ip: invalid CIDR '${cidr}'`);
  }
  const bytes = range[0].toByteArray();
  const random = randomBytes(bytes.length);
  const out = bytes.map((b, i) => {
    const fixed = Math.max(0, Math.min(8, range[1] - i * 8));
    const mask = (0xff << (8 - fixed)) & 0xff;
    return (b & mask) | ((random[i] as number) & ~mask & 0xff);
  });
  return ipaddr.fromByteArray(out).toString();
}

const latin1 = (a: DslValue[], i: number): Buffer => Buffer.from(str(a, i), 'latin1');
const utf8 = (a: DslValue[], i: number): Buffer => Buffer.from(str(a, i), 'utf8');

function stringToNumber(s: string, prefix: string, radix: number): number {
  const t = s.trim().toLowerCase();
  const n = Number.parseInt(t.startsWith(prefix) ? t.slice(prefix.length) : t, radix);
  if (Number.isNaN(n)) throw new DslRuntimeError(`'${s}' is not a base-${radix} number`);
  return n;
}

const STRUCT_SIZES: Record<string, number> = {
  b: 1,
  B: 1,
  '?': 1,
  c: 1,
  h: 2,
  H: 2,
  i: 4,
  I: 4,
  l: 4,
  L: 4,
  q: 8,
  Q: 8,
  f: 4,
  d: 8,
};

/** Python's struct.unpack for one value (`>I`, `<h`, `!Q`, …), as nuclei's unpack(). */
export function unpackValue(format: string, data: Buffer): DslValue {
  const m = /^([<>!=@]?)([bB?chHiIlLqQfd])$/.exec(format);
  if (!m) throw new DslRuntimeError(`unpack: unsupported format '${format}'`);
  const little = m[1] === '<' || m[1] === '' || m[1] === '=' || m[1] === '@';
  const type = m[2] as string;
  const size = STRUCT_SIZES[type] as number;
  if (data.length < size) throw new DslRuntimeError(`unpack: needs ${size} bytes, got ${data.length}`);
  switch (type) {
    case 'b':
      return data.readInt8(0);
    case 'B':
      return data.readUInt8(0);
    case '?':
      return data[0] !== 0;
    case 'c':
      return data.subarray(0, 1).toString('latin1');
    case 'h':
      return little ? data.readInt16LE(0) : data.readInt16BE(0);
    case 'H':
      return little ? data.readUInt16LE(0) : data.readUInt16BE(0);
    case 'i':
    case 'l':
      return little ? data.readInt32LE(0) : data.readInt32BE(0);
    case 'I':
    case 'L':
      return little ? data.readUInt32LE(0) : data.readUInt32BE(0);
    case 'q':
      return Number(little ? data.readBigInt64LE(0) : data.readBigInt64BE(0));
    case 'Q':
      return Number(little ? data.readBigUInt64LE(0) : data.readBigUInt64BE(0));
    case 'f':
      return little ? data.readFloatLE(0) : data.readFloatBE(0);
    default:
      return little ? data.readDoubleLE(0) : data.readDoubleBE(0);
  }
}

export const EXTRA_DSL_FUNCTIONS: Record<string, DslFunction> = {
  date_time: { min: 1, max: 2, fn: (a) => formatDateTime(str(a, 0), timeArg(a[1])) },
  to_unix_time: {
    min: 1,
    max: 2,
    fn: (a) => Math.floor(timeArg(a[0]).getTime() / 1000),
  },
  // nuclei sleeps here; a template's `{{wait_for(n)}}` in a request is lifted out when the
  // template is compiled (the executor waits without blocking), so inside an expression it
  // only answers true.
  wait_for: { min: 1, max: 1, fn: () => true },
  hmac: {
    min: 3,
    max: 3,
    fn: (a) => {
      const alg = HMAC_ALGS[str(a, 0).toLowerCase()];
      if (!alg) throw new DslRuntimeError(`hmac: unsupported hash algorithm '${str(a, 0)}'`);
      return createHmac(alg, utf8(a, 2)).update(utf8(a, 1)).digest('hex');
    },
  },
  generate_jwt: {
    min: 2,
    max: 4,
    fn: (a) => generateJwt(str(a, 0), str(a, 1), str(a, 2), a[3]),
  },
  aes_cbc: {
    min: 3,
    max: 3,
    fn: (a) => {
      try {
        const c = createCipheriv(`aes-${utf8(a, 1).length * 8}-cbc`, utf8(a, 1), utf8(a, 2));
        return Buffer.concat([c.update(utf8(a, 0)), c.final()]).toString('latin1');
      } catch (err) {
        throw new DslRuntimeError(`aes_cbc: ${(err as Error).message}`);
      }
    },
  },
  aes_gcm: {
    min: 2,
    max: 2,
    fn: (a) => {
      try {
        const nonce = randomBytes(12);
        const c = createCipheriv(`aes-${utf8(a, 0).length * 8}-gcm` as CipherGCMTypes, utf8(a, 0), nonce);
        const sealed = Buffer.concat([c.update(utf8(a, 1)), c.final(), c.getAuthTag()]);
        return Buffer.concat([nonce, sealed]).toString('latin1');
      } catch (err) {
        throw new DslRuntimeError(`aes_gcm: ${(err as Error).message}`);
      }
    },
  },
  zip: {
    min: 2,
    max: Infinity,
    fn: (a) => {
      if (a.length % 2 !== 0) throw new DslRuntimeError('zip needs pairs of file name and content');
      const entries: [string, Buffer][] = [];
      for (let i = 0; i < a.length; i += 2) entries.push([str(a, i), utf8(a, i + 1)]);
      return zipArchive(entries).toString('latin1');
    },
  },
  padding: {
    min: 3,
    max: 4,
    fn: (a) => {
      const data = str(a, 0);
      const pad = str(a, 1);
      const length = num(a, 2);
      if (pad === '' || !(length > 0)) throw new DslRuntimeError('padding: invalid padding');
      if (data.length >= length) return data;
      const fill = pad.repeat(Math.ceil((length - data.length) / pad.length)).slice(0, length - data.length);
      // nuclei's older three-argument form pads at the end.
      return str(a, 3) === 'prefix' ? fill + data : data + fill;
    },
  },
  rand_ip: { min: 1, max: Infinity, fn: (a) => randomIp(a.map(toDslString)) },
  deflate: { min: 1, max: 1, fn: (a) => deflateRawSync(utf8(a, 0)).toString('latin1') },
  inflate: {
    min: 1,
    max: 2,
    fn: (a) => {
      try {
        return inflateRawSync(latin1(a, 0), { maxOutputLength: 10 * 1024 * 1024 }).toString('utf8');
      } catch {
        throw new DslRuntimeError('inflate: invalid data');
      }
    },
  },
  json_prettify: {
    min: 1,
    max: 1,
    fn: (a) => {
      try {
        return JSON.stringify(JSON.parse(str(a, 0)), null, 4);
      } catch {
        throw new DslRuntimeError('invalid json');
      }
    },
  },
  to_bool: {
    min: 1,
    max: 1,
    fn: (a) => {
      const v = a[0] as DslValue;
      if (typeof v === 'boolean') return v;
      if (typeof v === 'number') return v !== 0;
      return ['1', 't', 'true', 'yes', 'y', 'on'].includes(toDslString(v).trim().toLowerCase());
    },
  },
  oct_to_dec: { min: 1, max: 1, fn: (a) => stringToNumber(str(a, 0), '0o', 8) },
  bin_to_dec: { min: 1, max: 1, fn: (a) => stringToNumber(str(a, 0), '0b', 2) },
  remove_bad_chars: {
    min: 2,
    max: 2,
    fn: (a) => [...str(a, 0)].filter((c) => !str(a, 1).includes(c)).join(''),
  },
  sort: {
    min: 1,
    max: Infinity,
    fn: (a) => (a.length === 1 ? [...str(a, 0)].sort().join('') : a.map(toDslString).sort()),
  },
  uniq: {
    min: 1,
    max: Infinity,
    fn: (a) => (a.length === 1 ? [...new Set(str(a, 0))].join('') : [...new Set(a.map(toDslString))]),
  },
  count: { min: 2, max: 2, fn: (a) => (str(a, 1) === '' ? 0 : str(a, 0).split(str(a, 1)).length - 1) },
  to_title: {
    min: 1,
    max: 2,
    fn: (a) => str(a, 0).replace(/\p{L}[\p{L}\p{M}'’]*/gu, (w) => w[0]?.toUpperCase() + w.slice(1)),
  },
  unpack: { min: 2, max: 2, fn: (a) => unpackValue(str(a, 0), latin1(a, 1)) },
  gzip_mtime: {
    min: 1,
    max: 1,
    fn: (a) => {
      const b = latin1(a, 0);
      if (b.length < 10 || b[0] !== 0x1f || b[1] !== 0x8b)
        throw new DslRuntimeError('gzip_mtime: not gzip data');
      return b.readUInt32LE(4);
    },
  },
  rsa_encrypt: {
    min: 2,
    max: 2,
    fn: (a) => {
      try {
        return publicEncrypt({ key: str(a, 1), padding: constants.RSA_PKCS1_PADDING }, utf8(a, 0)).toString(
          'base64',
        );
      } catch (err) {
        throw new DslRuntimeError(`rsa_encrypt: ${(err as Error).message}`);
      }
    },
  },
  generate_java_gadget: {
    min: 2,
    max: 3,
    fn: (a) => generateJavaGadget(str(a, 0), str(a, 1), str(a, 2)),
  },
  xor: {
    min: 2,
    max: Infinity,
    fn: (a) => {
      const parts = a.map((_, i) => latin1(a, i));
      const n = (parts[0] as Buffer).length;
      if (parts.some((p) => p.length !== n)) throw new DslRuntimeError('xor: arguments differ in length');
      const out = Buffer.alloc(n);
      for (const p of parts) for (let i = 0; i < n; i++) out[i] = (out[i] as number) ^ (p[i] as number);
      return out.toString('latin1');
    },
  },
};
