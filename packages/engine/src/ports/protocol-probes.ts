/**
 * Probes for services that wait to be spoken to, and the recognisers of their answers. Each is
 * written from the protocol's own specification (cited beside it); none comes from another
 * scanner's probe database.
 */
import type { RecognisedService } from './service-recognition.ts';

export interface ProtocolProbe {
  name: string;
  /** What to send right after connecting. */
  payload: Buffer;
  recognise: (data: Buffer) => RecognisedService | null;
}

const cpe = (vendorProduct: string, version?: string) =>
  `cpe:2.3:a:${vendorProduct}:${version ?? '*'}:*:*:*:*:*:*:*`;

function withVersion(
  base: RecognisedService,
  version: string | undefined,
  cpeName?: string,
): RecognisedService {
  const out = { ...base };
  if (version) out.version = version;
  if (cpeName) out.cpe = cpe(cpeName, version);
  return out;
}

// --- PostgreSQL: frontend/backend protocol 3.0 (PostgreSQL docs, "Message Formats") ---------

/** SSLRequest (int32 8, int32 80877103) followed by a StartupMessage for protocol 3.0. */
export function postgresPayload(): Buffer {
  const ssl = Buffer.alloc(8);
  ssl.writeInt32BE(8, 0);
  ssl.writeInt32BE(80877103, 4);
  const params = Buffer.from(
    'user\0perimeter\0database\0perimeter\0application_name\0perimeter\0\0',
    'latin1',
  );
  const startup = Buffer.alloc(8);
  startup.writeInt32BE(8 + params.length, 0);
  startup.writeInt32BE(0x00030000, 4);
  return Buffer.concat([ssl, startup, params]);
}

/**
 * The answer: the SSLRequest's single byte ('N' no TLS, 'S' TLS), then (after 'N') an
 * Authentication request ('R'), an ErrorResponse ('E'), or after AuthenticationOk the
 * ParameterStatus messages, one of which is server_version.
 */
export function recognisePostgres(data: Buffer): RecognisedService | null {
  if (!data.length) return null;
  let i = 0;
  let tls: boolean | undefined;
  if (data[0] === 0x4e || data[0] === 0x53) {
    tls = data[0] === 0x53;
    i = 1;
    // 'S' and then nothing: the server waits for a TLS handshake.
    if (data.length === 1)
      return tls ? { service: 'postgresql', product: 'PostgreSQL', tech: 'PostgreSQL' } : null;
  }
  let recognised = false;
  let version: string | undefined;
  while (i + 5 <= data.length) {
    const type = data[i] as number;
    const len = data.readInt32BE(i + 1);
    if (len < 4 || len > 65_536) break;
    const body = data.subarray(i + 5, Math.min(data.length, i + 1 + len));
    if (type === 0x52) {
      // Authentication request: int32 code 0 (Ok), 2, 3, 5, 7, 8, 9, 10 (SASL), 11, 12.
      if (body.length < 4 || ![0, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12].includes(body.readInt32BE(0))) return null;
      recognised = true;
    } else if (type === 0x45) {
      // ErrorResponse: fields of one code byte and a C string; severity 'S' comes first.
      if (body[0] !== 0x53) return null;
      recognised = true;
    } else if (type === 0x53 && recognised) {
      const [name, value] = body.toString('latin1').split('\0');
      if (name === 'server_version' && value) version = /^(\d+(?:\.\d+)*)/.exec(value)?.[1];
    } else if (!recognised) return null;
    i += 1 + len;
  }
  if (!recognised) return null;
  return withVersion(
    { service: 'postgresql', product: 'PostgreSQL', tech: 'PostgreSQL' },
    version,
    'postgresql:postgresql',
  );
}

// --- memcached: text protocol (memcached protocol.txt, "version") ---------------------------

export function recogniseMemcached(data: Buffer): RecognisedService | null {
  const m = /^VERSION (\d+\.\d+\.\d+)/.exec(data.toString('latin1'));
  if (!m) return null;
  return withVersion(
    { service: 'memcached', product: 'Memcached', tech: 'Memcached' },
    m[1],
    'memcached:memcached',
  );
}

// --- MQTT 3.1.1 (OASIS standard): CONNECT, then SUBSCRIBE $SYS/broker/version --------------

function mqttString(s: string): Buffer {
  const b = Buffer.from(s, 'utf8');
  const len = Buffer.alloc(2);
  len.writeUInt16BE(b.length);
  return Buffer.concat([len, b]);
}

function mqttPacket(header: number, body: Buffer): Buffer {
  // Remaining length: 7 bits a byte, high bit set when more follow (all ours are < 128).
  return Buffer.concat([Buffer.from([header, body.length]), body]);
}

export function mqttPayload(): Buffer {
  const connect = mqttPacket(
    0x10,
    Buffer.concat([mqttString('MQTT'), Buffer.from([4, 0x02, 0, 30]), mqttString('perimeter')]),
  );
  const subscribe = mqttPacket(
    0x82,
    Buffer.concat([Buffer.from([0, 1]), mqttString('$SYS/broker/version'), Buffer.from([0])]),
  );
  return Buffer.concat([connect, subscribe]);
}

/** CONNACK (0x20, length 2); a PUBLISH of `$SYS/broker/version` when anonymous reads are allowed. */
export function recogniseMqtt(data: Buffer): RecognisedService | null {
  if (data.length < 4 || data[0] !== 0x20 || data[1] !== 0x02) return null;
  const out: RecognisedService = { service: 'mqtt' };
  let i = 4;
  while (i + 2 <= data.length) {
    const type = (data[i] as number) >> 4;
    let len = 0;
    let mul = 1;
    let j = i + 1;
    for (; j < data.length && j < i + 5; j++) {
      const b = data[j] as number;
      len += (b & 0x7f) * mul;
      mul *= 128;
      if (!(b & 0x80)) break;
    }
    const start = j + 1;
    const body = data.subarray(start, start + len);
    if (type === 3 && body.length >= 2) {
      const topicLen = body.readUInt16BE(0);
      const topic = body.subarray(2, 2 + topicLen).toString('utf8');
      const qos = ((data[i] as number) >> 1) & 3;
      const payload = body.subarray(2 + topicLen + (qos ? 2 : 0)).toString('utf8');
      if (topic === '$SYS/broker/version') {
        const m = /^mosquitto version (\d+(?:\.\d+)*)/i.exec(payload);
        if (m)
          return withVersion(
            { service: 'mqtt', product: 'Mosquitto', tech: 'Mosquitto' },
            m[1],
            'eclipse:mosquitto',
          );
        const other = /^(\D+?)\s*v?(\d+(?:\.\d+)+)/.exec(payload);
        if (other)
          return { service: 'mqtt', product: (other[1] as string).trim(), version: other[2] as string };
      }
    }
    i = start + len;
  }
  return out;
}

// --- DNS over TCP (RFC 1035 4.2.2; CHAOS TXT version.bind) -----------------------------------

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

// --- LDAP v3 (RFC 4511): a base search of the root DSE, BER encoded ----------------------

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

// --- AMQP 0-9-1 (protocol header, then Connection.Start with server-properties) -----------

export const AMQP_HEADER = Buffer.from('AMQP\x00\x00\x09\x01', 'latin1');

/** Reads a long string value of `key` from an AMQP field table (key, 'S', uint32 length, bytes). */
function amqpTableString(data: Buffer, key: string): string | undefined {
  const k = Buffer.concat([
    Buffer.from([key.length]),
    Buffer.from(key, 'latin1'),
    Buffer.from('S', 'latin1'),
  ]);
  const at = data.indexOf(k);
  if (at < 0 || at + k.length + 4 > data.length) return undefined;
  const len = data.readUInt32BE(at + k.length);
  return data.subarray(at + k.length + 4, at + k.length + 4 + len).toString('utf8');
}

export function recogniseAmqp(data: Buffer): RecognisedService | null {
  // A server that does not speak 0-9-1 answers with its own protocol header.
  if (data.subarray(0, 4).toString('latin1') === 'AMQP') return { service: 'amqp' };
  // Method frame (type 1) on channel 0, class 10 (connection) method 10 (start).
  if (data.length < 12 || data[0] !== 1 || data.readUInt16BE(1) !== 0) return null;
  if (data.readUInt16BE(7) !== 10 || data.readUInt16BE(9) !== 10) return null;
  const product = amqpTableString(data, 'product');
  const version = amqpTableString(data, 'version');
  if (product === 'RabbitMQ')
    return withVersion(
      { service: 'amqp', product: 'RabbitMQ', tech: 'RabbitMQ' },
      version,
      'vmware:rabbitmq',
    );
  const out: RecognisedService = { service: 'amqp' };
  if (product) out.product = product;
  if (product && version) out.version = version;
  return out;
}

// --- Microsoft SQL Server: TDS 7 PRELOGIN ([MS-TDS] 2.2.6.5) ----------------------------------

export function mssqlPreloginPayload(): Buffer {
  // Options: VERSION (0), ENCRYPTION (1); terminator 0xff; then their data.
  const options = Buffer.from([0x00, 0x00, 0x0b, 0x00, 0x06, 0x01, 0x00, 0x11, 0x00, 0x01, 0xff]);
  const data = Buffer.from([0, 0, 0, 0, 0, 0, 0x02]);
  const body = Buffer.concat([options, data]);
  const header = Buffer.from([0x12, 0x01, 0, 0, 0, 0, 0x01, 0]);
  header.writeUInt16BE(8 + body.length, 2);
  return Buffer.concat([header, body]);
}

export function recogniseMssql(data: Buffer): RecognisedService | null {
  if (data.length < 14 || data[0] !== 0x04 || data[1] !== 0x01) return null;
  const body = data.subarray(8);
  let i = 0;
  while (i + 5 <= body.length && body[i] !== 0xff) {
    const token = body[i];
    const offset = body.readUInt16BE(i + 1);
    const len = body.readUInt16BE(i + 3);
    if (token === 0x00 && len >= 6 && offset + 6 <= body.length) {
      const v = `${body[offset]}.${body[offset + 1]}.${body.readUInt16BE(offset + 2)}`;
      return withVersion(
        { service: 'ms-sql-s', product: 'Microsoft SQL Server', tech: 'Microsoft SQL Server' },
        v,
        'microsoft:sql_server',
      );
    }
    i += 5;
  }
  return null;
}

// --- Oracle TNS listener: CONNECT with (CONNECT_DATA=(COMMAND=version)) -------------------

export function oracleTnsPayload(): Buffer {
  const connectData = Buffer.from('(CONNECT_DATA=(COMMAND=version))', 'latin1');
  const header = Buffer.alloc(8);
  const fixed = Buffer.alloc(50);
  fixed.writeUInt16BE(0x013a, 0); // version 314
  fixed.writeUInt16BE(0x012c, 2); // lowest compatible 300
  fixed.writeUInt16BE(0x0000, 4); // service options
  fixed.writeUInt16BE(0x0800, 6); // SDU
  fixed.writeUInt16BE(0x7fff, 8); // TDU
  fixed.writeUInt16BE(0x7f08, 10); // protocol characteristics
  fixed.writeUInt16BE(0x0000, 12);
  fixed.writeUInt16BE(0x0001, 14); // byte order
  fixed.writeUInt16BE(connectData.length, 16);
  fixed.writeUInt16BE(58, 18); // offset of the connect data (8 + 50)
  const total = 8 + fixed.length + connectData.length;
  header.writeUInt16BE(total, 0);
  header[4] = 1; // CONNECT
  return Buffer.concat([header, fixed, connectData]);
}

/** ACCEPT (2), REFUSE (4) or RESEND (11) with a DESCRIPTION; VSNNUM encodes the version. */
export function recogniseOracleTns(data: Buffer): RecognisedService | null {
  if (data.length < 8 || ![2, 4, 5, 11].includes(data[4] as number)) return null;
  if (data.readUInt16BE(0) < 8) return null;
  const text = data.toString('latin1');
  if (!/\(DESCRIPTION=|\(ERR=|TNSLSNR|VSNNUM/.test(text) && data[4] !== 11) return null;
  const out: RecognisedService = {
    service: 'oracle-tns',
    product: 'Oracle TNS listener',
    tech: 'Oracle Database',
  };
  const vsn = /VSNNUM=(\d+)/.exec(text)?.[1];
  if (vsn) {
    const n = Number(vsn);
    out.version = [n >>> 24, (n >>> 20) & 0xf, (n >>> 12) & 0xff, (n >>> 8) & 0xf, n & 0xff].join('.');
  }
  return out;
}

// --- MongoDB: OP_MSG {buildInfo: 1, $db: "admin"} (MongoDB wire protocol, BSON spec) -------

function bsonDoc(elements: Buffer[]): Buffer {
  const body = Buffer.concat([...elements, Buffer.from([0])]);
  const len = Buffer.alloc(4);
  len.writeInt32LE(body.length + 4);
  return Buffer.concat([len, body]);
}

export function mongoBuildInfoPayload(): Buffer {
  const int32 = Buffer.alloc(4);
  int32.writeInt32LE(1);
  const db = Buffer.from('admin\0', 'utf8');
  const dbLen = Buffer.alloc(4);
  dbLen.writeInt32LE(db.length);
  const doc = bsonDoc([
    Buffer.concat([Buffer.from([0x10]), Buffer.from('buildInfo\0'), int32]),
    Buffer.concat([Buffer.from([0x02]), Buffer.from('$db\0'), dbLen, db]),
  ]);
  const msg = Buffer.concat([Buffer.alloc(4), Buffer.from([0]), doc]); // flagBits, section kind 0
  const header = Buffer.alloc(16);
  header.writeInt32LE(16 + msg.length, 0);
  header.writeInt32LE(1, 4); // requestID
  header.writeInt32LE(0, 8);
  header.writeInt32LE(2013, 12); // OP_MSG
  return Buffer.concat([header, msg]);
}

export function recogniseMongo(data: Buffer): RecognisedService | null {
  if (data.length < 21) return null;
  const opCode = data.readInt32LE(12);
  if (opCode !== 2013 && opCode !== 1) return null;
  if (data.readInt32LE(8) !== 1) return null; // responseTo our request
  const key = Buffer.from('\x02version\0', 'latin1');
  const at = data.indexOf(key);
  let version: string | undefined;
  if (at >= 0) {
    const len = data.readInt32LE(at + key.length);
    version = data.subarray(at + key.length + 4, at + key.length + 3 + len).toString('utf8');
  }
  return withVersion({ service: 'mongodb', product: 'MongoDB', tech: 'MongoDB' }, version, 'mongodb:mongodb');
}

// --- SMB2 NEGOTIATE ([MS-SMB2] 2.2.3) -----------------------------------------------------

export function smb2NegotiatePayload(): Buffer {
  const dialects = [0x0202, 0x0210, 0x0300, 0x0302];
  const header = Buffer.alloc(64);
  Buffer.from([0xfe, 0x53, 0x4d, 0x42]).copy(header, 0);
  header.writeUInt16LE(64, 4); // structure size
  const body = Buffer.alloc(36 + dialects.length * 2);
  body.writeUInt16LE(36, 0);
  body.writeUInt16LE(dialects.length, 2);
  body.writeUInt16LE(1, 4); // signing enabled
  for (const [i, d] of dialects.entries()) body.writeUInt16LE(d, 36 + i * 2);
  const smb = Buffer.concat([header, body]);
  const nb = Buffer.alloc(4);
  nb.writeUInt32BE(smb.length);
  return Buffer.concat([nb, smb]);
}

export function recogniseSmb(data: Buffer): RecognisedService | null {
  if (data.length < 8 || data[0] !== 0) return null;
  const proto = data.subarray(4, 8);
  if (
    !proto.equals(Buffer.from([0xfe, 0x53, 0x4d, 0x42])) &&
    !proto.equals(Buffer.from([0xff, 0x53, 0x4d, 0x42]))
  )
    return null;
  return { service: 'microsoft-ds', product: 'SMB' };
}

// --- RDP: X.224 Connection Request with an RDP Negotiation Request ([MS-RDPBCGR] 2.2.1.1) ---

export const RDP_PAYLOAD = Buffer.from([
  0x03, 0x00, 0x00, 0x13, 0x0e, 0xe0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x08, 0x00, 0x03, 0x00, 0x00,
  0x00,
]);

export function recogniseRdp(data: Buffer): RecognisedService | null {
  // TPKT version 3, X.224 Connection Confirm (0xd0).
  if (data.length < 11 || data[0] !== 0x03 || data[1] !== 0x00 || ((data[5] as number) & 0xf0) !== 0xd0)
    return null;
  return { service: 'ms-wbt-server', product: 'RDP' };
}

// --- The list, and which ports try which first --------------------------------------------

export const PROTOCOL_PROBES: Record<string, ProtocolProbe> = {
  postgres: { name: 'postgres', payload: postgresPayload(), recognise: recognisePostgres },
  memcached: { name: 'memcached', payload: Buffer.from('version\r\n'), recognise: recogniseMemcached },
  mqtt: { name: 'mqtt', payload: mqttPayload(), recognise: recogniseMqtt },
  dns: { name: 'dns', payload: dnsVersionPayload(), recognise: recogniseDnsVersion },
  ldap: { name: 'ldap', payload: ldapRootDsePayload(), recognise: recogniseLdap },
  amqp: { name: 'amqp', payload: AMQP_HEADER, recognise: recogniseAmqp },
  mssql: { name: 'mssql', payload: mssqlPreloginPayload(), recognise: recogniseMssql },
  oracle: { name: 'oracle', payload: oracleTnsPayload(), recognise: recogniseOracleTns },
  mongodb: { name: 'mongodb', payload: mongoBuildInfoPayload(), recognise: recogniseMongo },
  smb: { name: 'smb', payload: smb2NegotiatePayload(), recognise: recogniseSmb },
  rdp: { name: 'rdp', payload: RDP_PAYLOAD, recognise: recogniseRdp },
};

/** The protocol probe to try first on a well-known port. */
export const PORT_PROBES: Record<number, string> = {
  53: 'dns',
  139: 'smb',
  389: 'ldap',
  445: 'smb',
  1433: 'mssql',
  1521: 'oracle',
  1883: 'mqtt',
  3268: 'ldap',
  3389: 'rdp',
  5432: 'postgres',
  5672: 'amqp',
  11211: 'memcached',
  27017: 'mongodb',
};

/**
 * Probes tried on a silent port that no well-known number points at, in order: the ones that
 * cannot upset another service (each is one short message, closed after the answer).
 */
export const FALLBACK_PROBES = ['postgres', 'memcached', 'mqtt', 'amqp', 'ldap', 'mongodb', 'mssql', 'dns'];
