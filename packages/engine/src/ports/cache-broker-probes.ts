/**
 * Probes of caches and message brokers: memcached, MQTT and AMQP 0-9-1, each written from the
 * protocol's own documents (cited beside it).
 */
import { withVersion } from './service-cpe.ts';
import type { RecognisedService } from './service-recognition.ts';

// --- memcached: text protocol (memcached protocol.txt, "version")

export function recogniseMemcached(data: Buffer): RecognisedService | null {
  const m = /^VERSION (\d+\.\d+\.\d+)/.exec(data.toString('latin1'));
  if (!m) return null;
  return withVersion(
    { service: 'memcached', product: 'Memcached', tech: 'Memcached' },
    m[1],
    'memcached:memcached',
  );
}

// --- MQTT 3.1.1 (OASIS standard): CONNECT, then SUBSCRIBE $SYS/broker/version

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

// --- AMQP 0-9-1 (protocol header, then Connection.Start with server-properties)

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
