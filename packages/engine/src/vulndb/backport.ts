/**
 * How much a CVE match on a detected version can be trusted. Linux distributions patch security
 * issues without changing the upstream version (Debian's `Apache/2.4.62 (Debian)` may already
 * carry the fix of a CVE "affecting 2.4.62"), so a match that rests only on a version a banner
 * announces says so, and names the distribution package revision when the banner gives it.
 */
export type MatchConfidence = 'high' | 'medium' | 'low';

export interface MatchHonesty {
  confidence: MatchConfidence;
  /** Why the match may be wrong; absent when nothing suggests it. */
  note?: string;
  /** Distribution and package revision the banner names (`Debian`, `2+deb12u3`). */
  distribution?: string;
  packageRevision?: string;
}

interface Distro {
  name: string;
  pattern: RegExp;
  tracker: string;
}

const DISTROS: Distro[] = [
  {
    name: 'Debian',
    pattern: /debian|[+~]deb\d+u?\d*/i,
    tracker: 'https://security-tracker.debian.org/tracker/',
  },
  { name: 'Ubuntu', pattern: /ubuntu/i, tracker: 'https://ubuntu.com/security/' },
  {
    name: 'Red Hat',
    pattern: /red ?hat|rhel|centos|rocky|alma|\.el\d/i,
    tracker: 'https://access.redhat.com/security/cve/',
  },
  { name: 'Fedora', pattern: /fedora|\.fc\d+/i, tracker: 'https://bodhi.fedoraproject.org/updates/?search=' },
  { name: 'SUSE', pattern: /suse/i, tracker: 'https://www.suse.com/security/cve/' },
  { name: 'Alpine', pattern: /alpine/i, tracker: 'https://security.alpinelinux.org/vuln/' },
  { name: 'FreeBSD', pattern: /freebsd/i, tracker: 'https://vuxml.freebsd.org/freebsd/' },
];

/**
 * The distribution package revision a banner names: `OpenSSH_9.2p1 Debian-2+deb12u3` → `2+deb12u3`,
 * `OpenSSH_8.9p1 Ubuntu-3ubuntu0.10` → `3ubuntu0.10`, `PHP/8.2.7-1~deb12u1` → `1~deb12u1`.
 */
export function packageRevision(banner: string, version: string): string | undefined {
  const named = /(?:Debian|Ubuntu|Raspbian)-([0-9][\w.+~]*)/i.exec(banner);
  if (named) return named[1];
  const i = version ? banner.indexOf(version) : -1;
  if (i < 0) return undefined;
  const after =
    /^[-+~]((?:\d[\w.]*)?(?:[+~](?:deb|ubuntu|bpo)[\w.~+]*|ubuntu[\w.~+]*|\.el\d[\w.]*|\.fc\d+[\w.]*))/i.exec(
      banner.slice(i + version.length),
    );
  return after?.[1];
}

/**
 * Confidence of a match on `version` of a technology seen through `banner` (the text the version
 * came from: an SSH/FTP/SMTP greeting, a Server or X-Powered-By header), or `high` when the
 * version came from the software's own files (JavaScript libraries, generator tags).
 */
export function matchHonesty(
  tech: { version: string; banner?: string; jsLibrary?: string },
  cve: string,
): MatchHonesty {
  if (!tech.banner || tech.jsLibrary) return { confidence: 'high' };
  const banner = tech.banner.trim();
  const distro = DISTROS.find((d) => d.pattern.test(banner));
  if (!distro)
    return {
      confidence: 'medium',
      note: `Matched on the version the banner announces ("${banner}") only; a vendor build may carry the fix of ${cve} without changing the version.`,
    };
  const revision = packageRevision(banner, tech.version);
  const where = `${distro.tracker}${distro.name === 'Debian' || distro.name === 'Red Hat' || distro.name === 'SUSE' ? cve : ''}`;
  const note = revision
    ? `The banner ("${banner}") names the ${distro.name} package revision ${revision}: ${distro.name} backports security fixes without changing the upstream version ${tech.version}, so ${cve} may already be fixed in that revision — check ${where}.`
    : `The banner ("${banner}") says the software is ${distro.name}'s build: ${distro.name} backports security fixes without changing the upstream version ${tech.version}, so ${cve} may already be fixed — check the installed package's changelog and ${where}.`;
  return {
    confidence: 'low',
    note,
    distribution: distro.name,
    ...(revision ? { packageRevision: revision } : {}),
  };
}
