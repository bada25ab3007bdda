import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { interpolate } from './dsl-interpolate.ts';
import { generateJavaGadget, urlDnsGadget } from './java-gadget.ts';

const URL_TEXT = 'http://scan0000000000000000000000000001.oob.perimeter.test';
const HOST = 'scan0000000000000000000000000001.oob.perimeter.test';

/** A Java string as the stream writes it: TC_STRING, a 2-byte length, the bytes. */
const javaString = (s: string) => Buffer.concat([Buffer.from([0x74, 0, s.length]), Buffer.from(s)]);

describe('generate_java_gadget (URLDNS)', () => {
  const bytes = urlDnsGadget(URL_TEXT);

  it('is a serialized HashMap whose key is a java.net.URL with an unset hash code', () => {
    expect(bytes.subarray(0, 4).toString('hex')).toBe('aced0005');
    expect(bytes.includes(Buffer.from('java.util.HashMap'))).toBe(true);
    expect(bytes.includes(Buffer.from('java.net.URL'))).toBe(true);
    // The String field type written once, then referred to by handle 0x7e0003 four times.
    const ref = Buffer.from('71007e0003', 'hex');
    let count = 0;
    for (let i = bytes.indexOf(ref); i >= 0; i = bytes.indexOf(ref, i + 1)) count++;
    expect(count).toBe(4);
    // hashCode -1, port -1, then authority, file, host, protocol, a null ref and the end of the URL.
    const fields = Buffer.concat([
      Buffer.from('ffffffffffffffff', 'hex'),
      javaString(HOST),
      javaString(''),
      javaString(HOST),
      javaString('http'),
      Buffer.from('7078', 'hex'),
      javaString(URL_TEXT),
      Buffer.from('78', 'hex'),
    ]);
    expect(bytes.subarray(bytes.length - fields.length).equals(fields)).toBe(true);
  });

  it('reads the port and path as java.net.URL does', () => {
    const b = urlDnsGadget('https://h.oob.test:8443/a/b');
    expect(
      b.includes(Buffer.concat([Buffer.from('ffffffff000020fb', 'hex'), javaString('h.oob.test:8443')])),
    ).toBe(true);
    expect(b.includes(javaString('/a/b'))).toBe(true);
    expect(b.includes(javaString('https'))).toBe(true);
  });

  it.each([
    ['hex', (s: string) => Buffer.from(s, 'hex')],
    ['raw', (s: string) => Buffer.from(s, 'latin1')],
    ['base64-raw', (s: string) => Buffer.from(s, 'base64')],
    ['base64', (s: string) => Buffer.from(s.replaceAll('%2B', '+'), 'base64')],
    ['', (s: string) => Buffer.from(s.replaceAll('%2B', '+'), 'base64')],
    ['gzip-base64', (s: string) => gunzipSync(Buffer.from(s.replaceAll('%2B', '+'), 'base64'))],
  ])('encodes as nuclei does: %s', (encoding, decode) => {
    const out = generateJavaGadget('dns', URL_TEXT, encoding);
    expect(decode(out).equals(bytes)).toBe(true);
    if (encoding === 'base64') expect(out).not.toContain('+');
  });

  it('is a template helper, with the call-back name filled in before it runs', () => {
    const r = interpolate(`{{generate_java_gadget("dns", "${URL_TEXT}", "hex")}}`, {});
    expect(r.unresolved).toEqual([]);
    expect(r.text).toBe(bytes.toString('hex'));
  });

  it('refuses gadget chains it does not ship', () => {
    expect(() => generateJavaGadget('commons-collections3.1', 'id', 'raw')).toThrow(/not shipped/);
  });
});
