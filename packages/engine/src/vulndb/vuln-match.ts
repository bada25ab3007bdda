import { parseCpe } from './cpe.ts';
import { compareVersions } from './version-compare.ts';
import type { VulnStore } from './vuln-store.ts';
import type { ConfigNode, Configuration, CpeMatchRule, DetectedProduct, VulnRecord } from './vuln-types.ts';

/** Known CPE vendor:product names per product, for detections that carry no CPE. */
export const PRODUCT_CPES: Record<string, string[]> = {
  nginx: ['nginx:nginx', 'f5:nginx', 'igor_sysoev:nginx'],
  'apache http server': ['apache:http_server'],
  apache: ['apache:http_server'],
  'apache httpd': ['apache:http_server'],
  php: ['php:php'],
  openssh: ['openbsd:openssh'],
  openssl: ['openssl:openssl'],
  vsftpd: ['vsftpd_project:vsftpd', 'beasts:vsftpd'],
  exim: ['exim:exim'],
  'exim smtpd': ['exim:exim'],
  postfix: ['postfix:postfix'],
  proftpd: ['proftpd:proftpd', 'proftpd_project:proftpd'],
  mysql: ['oracle:mysql', 'mysql:mysql', 'oracle:mysql_server'],
  redis: ['redislabs:redis', 'redis:redis'],
  elasticsearch: ['elastic:elasticsearch', 'elasticsearch:elasticsearch'],
  grafana: ['grafana:grafana'],
  jenkins: ['jenkins:jenkins', 'cloudbees:jenkins'],
  gitlab: ['gitlab:gitlab'],
  confluence: ['atlassian:confluence', 'atlassian:confluence_server', 'atlassian:confluence_data_center'],
  wordpress: ['wordpress:wordpress'],
  jquery: ['jquery:jquery'],
  tomcat: ['apache:tomcat'],
  'apache tomcat': ['apache:tomcat'],
  iis: ['microsoft:internet_information_services', 'microsoft:iis', 'microsoft:internet_information_server'],
  'microsoft iis': [
    'microsoft:internet_information_services',
    'microsoft:iis',
    'microsoft:internet_information_server',
  ],
  'microsoft exchange server': ['microsoft:exchange_server'],
  lighttpd: ['lighttpd:lighttpd'],
  jetty: ['eclipse:jetty', 'mortbay:jetty'],
  'microsoft asp.net': ['microsoft:asp.net'],
};

/** retire.js library names for JavaScript detections. */
const JS_LIBRARIES: Record<string, string> = {
  jquery: 'jquery',
  'jquery ui': 'jquery-ui',
  'jquery migrate': 'jquery-migrate',
  angularjs: 'angularjs',
  bootstrap: 'bootstrap',
  lodash: 'lodash',
  'moment.js': 'moment.js',
  moment: 'moment.js',
  'underscore.js': 'underscore.js',
  handlebars: 'handlebars',
  vue: 'vue',
  'vue.js': 'vue',
  react: 'react',
  dompurify: 'DOMPurify',
  'backbone.js': 'backbone.js',
  knockout: 'knockout',
  tinymce: 'tinyMCE',
  ckeditor: 'ckeditor',
  axios: 'axios',
  'chart.js': 'chart.js',
  prototype: 'prototypejs',
  mootools: 'mootools',
};

export function productKeysOf(p: DetectedProduct): string[] {
  const keys = new Set<string>();
  const cpe = p.cpe ? parseCpe(p.cpe) : undefined;
  const name = p.name.trim().toLowerCase();
  if (cpe) {
    keys.add(`${cpe.vendor}:${cpe.product}`);
    for (const alias of PRODUCT_CPES[cpe.product] ?? []) keys.add(alias);
  }
  for (const k of PRODUCT_CPES[name] ?? []) keys.add(k);
  const js = p.jsLibrary ?? JS_LIBRARIES[name];
  if (js) keys.add(`retirejs:${js.toLowerCase()}`);
  return [...keys];
}

export function jsLibraryName(p: DetectedProduct): string | undefined {
  return p.jsLibrary ?? JS_LIBRARIES[p.name.trim().toLowerCase()];
}

/**
 * `7.2p2` → `7.2` + `p2`; `8.3.0-beta1` → `8.3.0` + `beta1`. A bare letter stays part of the
 * version (OpenSSL's `1.0.2k` is a version of its own, not an update of 1.0.2).
 */
export function splitUpdate(version: string): { base: string; update: string } {
  const m = /^(\d+(?:\.\d+)*)[-_.]?((?:p|a|b|rc|alpha|beta|pre|dev|m)\.?\d+)$/i.exec(version.trim());
  if (!m) return { base: version.trim(), update: '' };
  return { base: m[1] as string, update: (m[2] as string).toLowerCase().replace('.', '') };
}

function isAnyUpdate(u: string): boolean {
  return u === '*' || u === '' || u === '-';
}

/** Exact range semantics of a CPE match rule for one version. */
export function ruleMatchesVersion(rule: CpeMatchRule, version: string): boolean {
  const ruleUpdate = rule.update.toLowerCase();
  const { base, update } = splitUpdate(version);
  if (rule.version !== '*' && rule.version !== '') {
    if (rule.version === '-') return false;
    if (!isAnyUpdate(ruleUpdate)) {
      // cpe:...:grafana:8.0.0:beta1 — version and update together.
      return compareVersions(base, rule.version) === 0 && update === ruleUpdate.replace('.', '');
    }
    // NVD writes patch letters in the version field (openssh 7.2p2, openssl 1.0.2k): exact only.
    return compareVersions(version, rule.version) === 0;
  }
  let v = version;
  if (!isAnyUpdate(ruleUpdate)) {
    // cpe:...:openssh:*:p2 with versionEndIncluding 7.2: the update must be p2, the range applies to 7.2.
    if (update !== ruleUpdate.replace('.', '')) return false;
    v = base;
  }
  // With any update, "up to and including 7.2" covers 7.2p2, and "after 7.2" does not.
  const bounded = update !== '' && isAnyUpdate(ruleUpdate) ? base : v;
  if (rule.versionStartIncluding && compareVersions(v, rule.versionStartIncluding) < 0) return false;
  if (rule.versionStartExcluding && compareVersions(bounded, rule.versionStartExcluding) <= 0) return false;
  // …and the bound itself is always included (`≤ 1.3.0_rc1` covers 1.3.0_rc1).
  if (
    rule.versionEndIncluding &&
    compareVersions(bounded, rule.versionEndIncluding) > 0 &&
    compareVersions(v, rule.versionEndIncluding) !== 0
  )
    return false;
  if (rule.versionEndExcluding && compareVersions(v, rule.versionEndExcluding) >= 0) return false;
  return true;
}

function ruleApplies(rule: CpeMatchRule, keys: Set<string>): boolean {
  return keys.has(`${rule.vendor}:${rule.product}`) || keys.has(`*:${rule.product}`);
}

interface NodeOutcome {
  /** true/false, or undefined when the node says nothing about this product (platform only). */
  value: boolean | undefined;
  rule?: CpeMatchRule;
}

function evalNode(n: ConfigNode, keys: Set<string>, version: string): NodeOutcome {
  const results: NodeOutcome[] = [];
  for (const m of n.matches) {
    if (!m.vulnerable) {
      results.push({ value: undefined });
      continue;
    }
    if (!ruleApplies(m, keys)) {
      results.push({ value: false });
      continue;
    }
    results.push(ruleMatchesVersion(m, version) ? { value: true, rule: m } : { value: false });
  }
  for (const c of n.children) results.push(evalNode(c, keys, version));
  let out: NodeOutcome;
  const known = results.filter((r) => r.value !== undefined);
  if (known.length === 0) out = { value: undefined };
  else if (n.operator === 'AND') {
    // Unknown parts (platforms we cannot see, like the OS) do not block the match.
    const hit = known.find((r) => r.value === true && r.rule);
    out = known.every((r) => r.value === true)
      ? { value: true, ...(hit?.rule ? { rule: hit.rule } : {}) }
      : { value: false };
  } else {
    const hit = known.find((r) => r.value === true);
    out = hit ? { value: true, ...(hit.rule ? { rule: hit.rule } : {}) } : { value: false };
  }
  if (n.negate && out.value !== undefined) return { value: !out.value };
  return out;
}

function evalConfiguration(c: Configuration, keys: Set<string>, version: string): CpeMatchRule | undefined {
  const outcomes = c.nodes.map((n) => evalNode(n, keys, version));
  const known = outcomes.filter((o) => o.value !== undefined);
  if (known.length === 0) return undefined;
  if (c.operator === 'AND') {
    if (!known.every((o) => o.value)) return undefined;
    return known.find((o) => o.rule)?.rule;
  }
  return known.find((o) => o.value && o.rule)?.rule;
}

export interface VulnMatch {
  record: VulnRecord;
  /** The rule whose range contains the version. */
  rule: CpeMatchRule;
}

/** Records of the store whose configurations hold for this product and version. */
export async function matchProduct(store: VulnStore, product: DetectedProduct): Promise<VulnMatch[]> {
  if (!product.version || !/\d/.test(product.version)) return [];
  const keys = productKeysOf(product);
  if (keys.length === 0) return [];
  const keySet = new Set(keys);
  const out: VulnMatch[] = [];
  for (const record of await store.candidates(keys)) {
    for (const c of record.configurations) {
      const rule = evalConfiguration(c, keySet, product.version);
      if (rule) {
        out.push({ record, rule });
        break;
      }
    }
  }
  return out.sort((a, b) => a.record.id.localeCompare(b.record.id));
}
