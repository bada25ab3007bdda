import type { ExecutorRegistry } from '../templates/template-runner.js';
import { dnsExecutor } from './dns/dns-protocol.js';
import { httpExecutor } from './http/http-protocol.js';
import { networkExecutor } from './network/network-protocol.js';
import { sslExecutor } from './ssl/ssl-protocol.js';

/** Every protocol the template engine runs. */
export const defaultExecutors: ExecutorRegistry = {
  http: httpExecutor,
  dns: dnsExecutor,
  network: networkExecutor,
  ssl: sslExecutor,
};

export { formatRecord, queryDns } from './dns/dns-client.js';
export { HttpClient, type HttpClientOptions, type HttpResponseData } from './http/http-client.js';
export { exchange } from './network/network-protocol.js';
export { describeTls, type TlsInfo, tlsHandshake } from './ssl/ssl-protocol.js';
export { dnsExecutor, httpExecutor, networkExecutor, sslExecutor };
