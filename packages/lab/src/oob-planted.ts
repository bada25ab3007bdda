/**
 * The out-of-band part of the lab: three services that call back when exploited, started
 * only with `startLab({ oob })` (the rest of the lab and expected.json do not change). Each
 * planted issue names the community-corpus templates (nuclei-templates, by id) that fire on it
 * when the scan has Perimeter's interaction server — and on no other lab service: every
 * service acts only on requests to `/` and only on its own header or parameter.
 */
export interface OobLabHost {
  octet: number;
  name: string;
  role: string;
  /** The call-back site (oob-services.ts). */
  site: 'header-lookup' | 'ssrf-fetch' | 'log4j';
}

export interface OobPlantedIssue {
  id: string;
  description: string;
  severity: 'critical' | 'high' | 'medium' | 'low' | 'info';
  host: string;
  port: number;
  path: string;
  /** How the service calls back: the interaction protocols the server records. */
  callbacks: ('dns' | 'http' | 'ldap')[];
  /** Corpus templates that fire here (and nowhere else in the lab). */
  corpusTemplates: string[];
  /** The matcher name a finding carries, per template, when the template names its matchers. */
  matcherNames?: Record<string, string>;
}

export const OOB_LAB_HOSTS: OobLabHost[] = [
  {
    octet: 30,
    name: 'analytics.acme.test',
    role: 'visitor analytics resolving X-Forwarded-For and the Referer host (DNS call-back)',
    site: 'header-lookup',
  },
  {
    octet: 31,
    name: 'preview.acme.test',
    role: 'link preview fetching the url parameter server-side (blind SSRF)',
    site: 'ssrf-fetch',
  },
  {
    octet: 32,
    name: 'logs.acme.test',
    role: 'Java app logging query values and headers with Log4j 2.14 (JNDI over LDAP)',
    site: 'log4j',
  },
];

export const OOB_PLANTED: OobPlantedIssue[] = [
  {
    id: 'LAB-OOB-HEADER-DNS',
    description: 'analytics.acme.test resolves the host names sent in X-Forwarded-For and Referer',
    severity: 'info',
    host: 'analytics.acme.test',
    port: 80,
    path: '/',
    callbacks: ['dns'],
    corpusTemplates: ['oob-header-based-interaction'],
    matcherNames: { 'oob-header-based-interaction': 'dns' },
  },
  {
    id: 'LAB-OOB-SSRF-FETCH',
    description: 'preview.acme.test fetches the URL given in its url parameter (blind SSRF)',
    severity: 'high',
    host: 'preview.acme.test',
    port: 80,
    path: '/',
    callbacks: ['dns', 'http'],
    corpusTemplates: ['oob-param-based-interaction'],
    matcherNames: { 'oob-param-based-interaction': 'http' },
  },
  {
    id: 'LAB-OOB-LOG4SHELL',
    description:
      'logs.acme.test logs request values with Log4j 2.14: a JNDI lookup string (jndi:ldap://…) makes it connect',
    severity: 'critical',
    host: 'logs.acme.test',
    port: 80,
    path: '/',
    callbacks: ['dns', 'ldap'],
    // The generic check and the Spring Boot one (X-Api-Version on /) both reach it.
    corpusTemplates: ['CVE-2021-44228', 'springboot-log4j-rce'],
  },
];
