import type { OobProvider } from '../protocols/oob/oob-types.ts';
import type { Stage } from './stage.ts';

export const SCAN_CLASSES = ['class_resources', 'class_exploitation', 'class_information_gathering'] as const;
export type ScanClass = (typeof SCAN_CLASSES)[number];
export const SCAN_SUBCLASSES = ['exploit_scanner', 'exploit_db', 'leakcheck'] as const;
export type ScanSubclass = (typeof SCAN_SUBCLASSES)[number];

/** Which class each subclass belongs to. */
export const SUBCLASS_CLASS: Record<ScanSubclass, ScanClass> = {
  exploit_scanner: 'class_exploitation',
  exploit_db: 'class_exploitation',
  leakcheck: 'class_information_gathering',
};

export interface ScanConfig {
  /** Classes to run; discovery (class_resources) always runs since the others need it. */
  classes?: ScanClass[];
  /** Subclasses to run; default: every subclass of the chosen classes. */
  subclasses?: ScanSubclass[];

  dns?: { servers?: string[]; timeoutMs?: number; retries?: number };
  scope?: { allowPrivate?: boolean; allow?: string[]; deny?: string[] };
  limits?: {
    maxSubdomains?: number;
    /** External IPs (plan limit "external IPs / assets"). */
    maxHosts?: number;
    /** Largest network target, in addresses. */
    maxNetworkSize?: number;
  };
  discovery?: {
    /** Built-in wordlist brute force (default on). */
    bruteforce?: boolean;
    /** An operator-supplied wordlist file (one label a line), used in addition. */
    wordlistFile?: string;
    /** Use only the first N labels of the built-in list. */
    wordlistLimit?: number;
    axfr?: boolean;
    /** crt.sh-compatible JSON API base URL; off when unset. */
    ctUrl?: string;
    concurrency?: number;
  };
  ports?: {
    /** `top100` (default), `top1000`, `all`, `22,80,8000-8100`, or a list. */
    list?: string | number[];
    concurrency?: number;
    /** Hosts scanned at once. */
    hostConcurrency?: number;
    connectTimeoutMs?: number;
    /** New connections per second per host (0 = unlimited). */
    ratePerHost?: number;
    bannerTimeoutMs?: number;
    /** Use nmap (`-sT -sV`) when installed instead of the built-in scanner. */
    nmap?: boolean | { path?: string };
  };
  http?: { timeoutMs?: number; maxRedirects?: number; concurrency?: number; userAgent?: string };
  fingerprints?: {
    /** Extra Wappalyzer-format directories (loaded after the built-in set). */
    dirs?: string[];
    /** Skip Perimeter's own set. */
    noBuiltin?: boolean;
  };
  /** Per-stage time limit (default 10 minutes). */
  stageTimeoutMs?: number;
  /** A stage that yields nothing for this long is ended (default 2 minutes). */
  watchdogMs?: number;
  /**
   * The out-of-band interaction server. With it, templates using `{{interactsh-url}}` run and
   * wait `waitMs` (default 5 s, at most 60 s) for call-backs after their requests; without it
   * they are skipped ("out-of-band checks not configured").
   */
  oob?: { provider: OobProvider; waitMs?: number };
  /**
   * Stages added after discovery (exploit_scanner, exploit_db, leakcheck...). They run at once,
   * so none may depend on another's results (they read discovery's inventory only).
   */
  extraStages?: Stage[];
}
