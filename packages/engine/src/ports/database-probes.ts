/**
 * Probes of database servers: PostgreSQL, Microsoft SQL Server, the Oracle TNS listener and
 * MongoDB, each written from the protocol's own documents (cited beside it).
 */
import { withVersion } from './service-cpe.ts';
import type { RecognisedService } from './service-recognition.ts';

// --- PostgreSQL: frontend/backend protocol 3.0 (PostgreSQL docs, "Message Formats")

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

// --- Microsoft SQL Server: TDS 7 PRELOGIN ([MS-TDS] 2.2.6.5)

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

// --- Oracle TNS listener: CONNECT with (CONNECT_DATA=(COMMAND=version))

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

// --- MongoDB: OP_MSG {buildInfo: 1, $db: "admin"} (MongoDB wire protocol, BSON spec)

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
