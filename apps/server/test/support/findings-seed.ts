import { SEVERITY_RANK } from '@perimeter/contracts';
import type { Db } from '../../src/db/client.ts';
import { findingSightings, scanScope, scans, scanTargets, targets } from '../../src/db/schema/index.ts';
import { FINDING_TABLES, type Subclass } from '../../src/modules/findings/findings-repo.ts';

/**
 * Rows shaped like the scans module writes them, for report/dashboard/notification tests that
 * must not depend on running the engine.
 */
export async function seedTarget(db: Db, userId: string, value: string) {
  const [row] = await db
    .insert(targets)
    .values({
      userId,
      targetType: 'domain',
      value,
      displayName: value,
      mainDomain: value,
      verified: true,
      verificationToken: 'seed',
    })
    .returning();
  return row!;
}

export async function seedScan(
  db: Db,
  userId: string,
  targetId: string,
  at: Date,
  status = 'done',
  subclasses = ['exploit_scanner', 'exploit_db', 'leakcheck'],
) {
  const [scan] = await db
    .insert(scans)
    .values({
      userId,
      status,
      targetType: 'domain',
      scanType: 'full',
      subclasses,
      createdAt: at,
      startedAt: at,
      finishedAt: status === 'done' ? new Date(at.getTime() + 95_000) : null,
      percent: status === 'done' ? 100 : 0,
    })
    .returning();
  await db.insert(scanTargets).values({ scanId: scan!.id, targetId });
  return scan!;
}

const SEV_ORD: Record<string, number> = SEVERITY_RANK;

type SeedIds = { userId: string; targetId: string; scanId: string };
type Change = 'new' | 'seen' | 'regressed';

/** The lifecycle columns every finding table shares, for a finding first seen by `ids.scanId`. */
function lifecycle(ids: SeedIds, key: string, severity: string, mainDomain: string, change: Change) {
  return {
    userId: ids.userId,
    targetId: ids.targetId,
    fingerprint: key,
    severity,
    severityOrdering: SEV_ORD[severity] ?? 0,
    mainDomain,
    status: change === 'seen' ? 'open' : change,
    firstScanId: ids.scanId,
    lastScanId: ids.scanId,
  };
}

/** The scan's sighting of a seeded finding. */
async function sight(
  db: Db,
  ids: SeedIds,
  row: { id: string },
  subclass: Subclass,
  host: string,
  change: Change,
  seenAt?: Date,
) {
  await db.insert(findingSightings).values({
    scanId: ids.scanId,
    findingId: row.id,
    subclass,
    userId: ids.userId,
    host,
    change,
    ...(seenAt ? { seenAt } : {}),
  });
  return row;
}

export interface TemplateSeed {
  key: string;
  name: string;
  severity: string;
  host: string;
  description?: string;
  curl?: string;
}

export async function seedTemplateFinding(
  db: Db,
  ids: SeedIds,
  f: TemplateSeed,
  change: Change = 'new',
  seenAt = new Date(),
) {
  const [row] = await db
    .insert(FINDING_TABLES.exploit_scanner)
    .values({
      ...lifecycle(ids, f.key, f.severity, f.host.split('.').slice(-2).join('.'), change),
      firstSeen: seenAt,
      lastSeen: seenAt,
      addTs: seenAt,
      templateId: f.key,
      name: f.name,
      host: f.host,
      subdomain: f.host,
      matchedAt: `http://${f.host}/`,
      detail: {
        description: f.description ?? `${f.name} was detected.`,
        impact: 'An attacker could read sensitive data.',
        remediation: 'Remove the exposed file and rotate secrets.',
        references: ['https://owasp.org/www-project-top-ten/'],
        classification: { cweId: ['CWE-200'], cvssScore: 7.5 },
        evidence: {
          request: `GET /.env HTTP/1.1\r\nHost: ${f.host}`,
          response: 'HTTP/1.1 200 OK\r\n\r\nDB_PASSWORD=********',
          curl: f.curl ?? `curl -sk 'http://${f.host}/.env'`,
        },
      },
    })
    .returning();
  return sight(db, ids, row!, 'exploit_scanner', f.host, change, seenAt);
}

export async function seedCveFinding(
  db: Db,
  ids: SeedIds,
  f: { key: string; cve: string; tech: string; version: string; severity: string; host: string },
  change: Change = 'new',
) {
  const [row] = await db
    .insert(FINDING_TABLES.exploit_db)
    .values({
      ...lifecycle(ids, f.key, f.severity, f.host.split('.').slice(-2).join('.'), change),
      tech: f.tech,
      version: f.version,
      cve: f.cve,
      host: f.host,
      subdomain: f.host,
      port: 443,
      cvssScore: 9.8,
      detail: {
        description: `A flaw in ${f.tech} ${f.version}.`,
        latestVersion: '3.7.1',
        homepage: `https://${f.tech}.example.org`,
        downloadsPerMonth: 123456,
        sourceRepository: `https://github.com/example/${f.tech}`,
        versionStart: '1.0.0',
        versionEnd: '3.5.0',
        references: [`https://nvd.nist.gov/vuln/detail/${f.cve}`],
        cwe: ['CWE-79'],
      },
    })
    .returning();
  return sight(db, ids, row!, 'exploit_db', f.host, change);
}

export async function seedLeakFinding(
  db: Db,
  ids: SeedIds,
  f: { key: string; email: string; password: string },
  change: Change = 'new',
) {
  const domain = f.email.split('@')[1]!;
  const [row] = await db
    .insert(FINDING_TABLES.leakcheck)
    .values({
      ...lifecycle(ids, f.key, 'high', domain, change),
      email: f.email,
      password: f.password,
      leakDate: '2023-05',
      sources: ['ExampleBreach 2023'],
      detail: {},
    })
    .returning();
  return sight(db, ids, row!, 'leakcheck', domain, change);
}

export async function seedScope(db: Db, scanId: string, name: string) {
  await db.insert(scanScope).values({
    scanId,
    name,
    kind: 'subdomain',
    mainDomain: name.split('.').slice(-2).join('.'),
    ipAddresses: ['127.0.1.10'],
    openedPorts: [80, 443],
    services: [],
    technologies: [{ name: 'nginx', version: '1.18.0' }],
    emails: [],
    cnames: [],
    urls: [],
  });
}
