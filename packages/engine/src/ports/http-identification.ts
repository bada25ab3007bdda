/**
 * Names the product behind an HTTP port from what it answered: the Server header, proxy
 * headers (Via, X-Varnish, X-Squid-Error), its pages (titles, error pages that carry a
 * version) and the JSON of API servers. A proxy in front of a web server is the product of the
 * port: the back end's Server header is not credited to it.
 */
import { cpe } from './service-cpe.ts';
import { parseRawHttp, type RecognisedService, recogniseServerHeader } from './service-recognition.ts';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Header names exactly as sent (some proxies lower-case them all). */
  rawHead: string;
}

export function parseHttpAnswer(text: string): HttpAnswer | null {
  const parsed = parseRawHttp(text);
  if (!parsed) return null;
  const split = text.search(/\r?\n\r?\n/);
  const rawHead = split < 0 ? text : text.slice(0, split);
  const body = split < 0 ? '' : text.slice(split).replace(/^\r?\n\r?\n/, '');
  return { ...parsed, body, rawHead };
}

function product(
  service: string,
  name: string,
  tech: string,
  version: string | undefined,
  cpeName?: string,
): RecognisedService {
  const out: RecognisedService = { service, product: name, tech };
  if (version) out.version = version;
  if (cpeName) out.cpe = cpe(cpeName, version);
  return out;
}

/** A proxy or cache that says so in its own headers (whatever the back end's Server says). */
export function recogniseProxy(a: HttpAnswer, service: string): RecognisedService | null {
  const via = a.headers.via ?? '';
  const server = a.headers.server ?? '';
  const varnish = /\(Varnish\/([\d.]+)\)/i.exec(via);
  if (varnish || a.headers['x-varnish'] !== undefined)
    return product(service, 'Varnish', 'Varnish', varnish?.[1], 'varnish-cache:varnish');
  const squid = /^squid(?:\/([\d.]+))?/i.exec(server) ?? /\(squid(?:\/([\d.]+))?\)/i.exec(via);
  if (squid || a.headers['x-squid-error'] !== undefined)
    return product('http-proxy', 'Squid http proxy', 'Squid', squid?.[1], 'squid-cache:squid');
  const tiny = /^tinyproxy(?:\/([\d.]+))?/i.exec(server);
  if (tiny) return product('http-proxy', 'tinyproxy', 'Tinyproxy', tiny[1], 'tinyproxy_project:tinyproxy');
  if (/^Privoxy/i.test(server) || /Privoxy/.test(a.headers['proxy-agent'] ?? ''))
    return product('http-proxy', 'Privoxy', 'Privoxy', undefined);
  if (/^Apache Traffic Server/i.test(server) || /ApacheTrafficServer\/([\d.]+)/.test(via)) {
    const v = /(?:Apache Traffic Server|ApacheTrafficServer)\/([\d.]+)/.exec(`${server} ${via}`)?.[1];
    return product(service, 'Apache Traffic Server', 'Apache Traffic Server', v, 'apache:traffic_server');
  }
  return null;
}

/**
 * HAProxy's own answer to a request it cannot parse (its built-in 400 page, no Server header):
 * the back end never sees the request, so this names the front.
 */
export function recogniseBadRequestAnswer(a: HttpAnswer, service: string): RecognisedService | null {
  if (
    a.status === 400 &&
    !a.headers.server &&
    /Your browser sent an invalid request\./.test(a.body) &&
    /<h1>400 Bad request<\/h1>/.test(a.body)
  )
    return product(service, 'HAProxy', 'HAProxy', undefined, 'haproxy:haproxy');
  return null;
}

/** From the page itself: default pages, error pages with a version, API servers' JSON. */
export function recogniseHttpBody(a: HttpAnswer, service: string): RecognisedService | null {
  const body = a.body;
  const tomcat = /Apache Tomcat\/(\d+\.\d+\.\d+)/.exec(body);
  if (tomcat) return product(service, 'Apache Tomcat', 'Apache Tomcat', tomcat[1], 'apache:tomcat');
  if (/<title>\s*Apache Tomcat(?:\/[\d.]+)?\s*<\/title>/i.test(body))
    return product(service, 'Apache Tomcat', 'Apache Tomcat', undefined, 'apache:tomcat');
  const json = parseJson(body);
  if (json) {
    const version = (json.version as Record<string, unknown> | undefined) ?? undefined;
    if (typeof version === 'object' && version && typeof version.number === 'string') {
      if (version.distribution === 'opensearch')
        return product(service, 'OpenSearch', 'OpenSearch', version.number, 'amazon:opensearch');
      if (json.tagline === 'You Know, for Search' || typeof json.cluster_name === 'string')
        return product(
          service,
          'Elasticsearch REST API',
          'Elasticsearch',
          version.number,
          'elastic:elasticsearch',
        );
    }
    if (typeof json.etcdserver === 'string')
      return product(service, 'etcd', 'etcd', json.etcdserver, 'etcd:etcd');
    if (typeof json.gitVersion === 'string' && typeof json.major === 'string')
      return product(
        service,
        'Kubernetes API',
        'Kubernetes',
        json.gitVersion.replace(/^v/, '').split('+')[0],
        'kubernetes:kubernetes',
      );
    if (json.kind === 'Status' && json.apiVersion === 'v1')
      return product(service, 'Kubernetes API', 'Kubernetes', undefined, 'kubernetes:kubernetes');
    const data = json.data as Record<string, unknown> | undefined;
    if (
      json.status === 'success' &&
      data &&
      typeof data.version === 'string' &&
      typeof data.goVersion === 'string'
    )
      return product(service, 'Prometheus', 'Prometheus', data.version, 'prometheus:prometheus');
    if (json.Config && typeof (json.Config as Record<string, unknown>).Version === 'string')
      return product(
        service,
        'Consul',
        'Consul',
        (json.Config as Record<string, string>).Version,
        'hashicorp:consul',
      );
  }
  const consul = /CONSUL_VERSION(?:%22%3A%22|":")(\d+\.\d+\.\d+)/.exec(body);
  if (consul) return product(service, 'Consul', 'Consul', consul[1], 'hashicorp:consul');
  if (/<title>\s*Consul by HashiCorp\s*<\/title>/i.test(body))
    return product(service, 'Consul', 'Consul', undefined);
  // Error pages that carry the server's name and version.
  const nginx = /<center>nginx\/(\d+\.\d+\.\d+)<\/center>/.exec(body);
  if (nginx) return product(service, 'nginx', 'Nginx', nginx[1], 'f5:nginx');
  const apache = /<address>Apache\/(\d+\.\d+\.\d+)[^<]* Server at /.exec(body);
  if (apache) return product(service, 'Apache httpd', 'Apache HTTP Server', apache[1], 'apache:http_server');
  const jetty = /Powered by Jetty:\/\/ (\d+\.\d+\.\d+)/.exec(body);
  if (jetty) return product(service, 'Jetty', 'Jetty', jetty[1], 'eclipse:jetty');
  return null;
}

function parseJson(body: string): Record<string, unknown> | null {
  const t = body.trim();
  if (!t.startsWith('{')) return null;
  try {
    const v = JSON.parse(t) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Docker's API names itself in its Server header: `Docker/24.0.7 (linux)`. */
function recogniseApiHeaders(a: HttpAnswer, service: string): RecognisedService | null {
  const docker = /^Docker\/([\d.]+)/.exec(a.headers.server ?? '');
  if (docker || a.headers['docker-experimental'] !== undefined)
    return product(service, 'Docker', 'Docker', docker?.[1], 'docker:engine');
  return null;
}

/**
 * Paths worth one more request, from cues in the answer to `/`: Go's plain 404 (etcd, the
 * Kubernetes API), a Kubernetes Status, Prometheus's redirect to its UI, Consul's to /ui/.
 */
export function followUpPaths(a: HttpAnswer): string[] {
  const paths: string[] = [];
  const location = a.headers.location ?? '';
  if (a.body.trim() === '404 page not found') paths.push('/version');
  if (/"kind"\s*:\s*"Status"/.test(a.body)) paths.push('/version');
  if (/^\/(?:graph|query)\b/.test(location)) paths.push('/api/v1/status/buildinfo');
  if (/^\/ui\/?$/.test(location)) paths.push('/ui/');
  return [...new Set(paths)];
}

/** The product of an HTTP port from the answer to `/` (proxies first, then headers, then the page). */
export function recogniseHttpAnswer(a: HttpAnswer, service: string): RecognisedService {
  const proxy = recogniseProxy(a, service);
  if (proxy) return proxy;
  const api = recogniseApiHeaders(a, service);
  if (api) return api;
  const fromHeader = recogniseServerHeader(a.headers.server, service);
  const fromBody = recogniseHttpBody(a, service);
  if (!fromHeader.product) return fromBody ?? fromHeader;
  // The same product named by the page with its version (nginx with server_tokens off, Tomcat).
  if (fromBody?.product === fromHeader.product && !fromHeader.version && fromBody.version) return fromBody;
  if (fromHeader.tech === 'Apache Tomcat') return fromBody?.tech === 'Apache Tomcat' ? fromBody : fromHeader;
  return fromHeader;
}
