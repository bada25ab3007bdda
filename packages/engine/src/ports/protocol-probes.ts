/**
 * Probes for services that wait to be spoken to, and which ports try which first. Each probe
 * and the recogniser of its answer is written from the protocol's own specification (in the
 * family files: database-, cache-broker-, naming- and windows-probes.ts); none comes from
 * another scanner's probe database.
 */
import {
  AMQP_HEADER,
  mqttPayload,
  recogniseAmqp,
  recogniseMemcached,
  recogniseMqtt,
} from './cache-broker-probes.ts';
import {
  mongoBuildInfoPayload,
  mssqlPreloginPayload,
  oracleTnsPayload,
  postgresPayload,
  recogniseMongo,
  recogniseMssql,
  recogniseOracleTns,
  recognisePostgres,
} from './database-probes.ts';
import {
  dnsVersionPayload,
  ldapRootDsePayload,
  recogniseDnsVersion,
  recogniseLdap,
} from './naming-probes.ts';
import type { RecognisedService } from './service-recognition.ts';
import { RDP_PAYLOAD, recogniseRdp, recogniseSmb, smb2NegotiatePayload } from './windows-probes.ts';

export interface ProtocolProbe {
  name: string;
  /** What to send right after connecting. */
  payload: Buffer;
  recognise: (data: Buffer) => RecognisedService | null;
}

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
