import type { ExecutorRegistry } from '../templates/template-runner.ts';
import { dnsExecutor } from './dns/dns-protocol.ts';
import { httpExecutor } from './http/http-protocol.ts';
import { networkExecutor } from './network/network-protocol.ts';
import { sslExecutor } from './ssl/ssl-protocol.ts';

/** Every protocol the template engine runs. */
export const defaultExecutors: ExecutorRegistry = {
  http: httpExecutor,
  dns: dnsExecutor,
  network: networkExecutor,
  ssl: sslExecutor,
};

export { formatRecord, queryDns } from './dns/dns-client.ts';
export { HttpClient, type HttpClientOptions, type HttpResponseData } from './http/http-client.ts';
export { exchange } from './network/network-protocol.ts';
export { describeTls, type TlsInfo, tlsHandshake } from './ssl/ssl-protocol.ts';
export { dnsExecutor, httpExecutor, networkExecutor, sslExecutor };
