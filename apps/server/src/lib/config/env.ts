import cronParser from 'cron-parser';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const optionalUrl = (protocols: RegExp) =>
  z
    .url()
    .refine((v) => protocols.test(new URL(v).protocol), `must use ${protocols.source.replace(/[\^$]/g, '')}`)
    .optional();

/**
 * The one configuration schema. Every variable is documented in `.env.example`.
 * Secrets left unset get embedded defaults generated into the data directory.
 */
export const ZEnv = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  PUBLIC_URL: z.url().optional(),
  PERIMETER_DATA_DIR: z.string().default('./data'),
  PERIMETER_WEB_DIST: z.string().optional(),
  DATABASE_URL: optionalUrl(/^postgres(ql)?:$/),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** 32 bytes, base64: encrypts TOTP secrets and other secrets at rest. */
  PERIMETER_ENCRYPTION_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes encoded as base64')
    .optional(),
  /** At least 32 characters: signs access tokens. */
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(30).max(86_400).default(900),
  REFRESH_TOKEN_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(300)
    .max(90 * 86_400)
    .default(14 * 86_400),
  SMTP_URL: optionalUrl(/^smtps?:$/),
  MAIL_FROM: z.string().default('Perimeter <no-reply@perimeter.local>'),
  MAINTENANCE_MODE: bool.optional(),
  MAINTENANCE_MESSAGE: z.string().max(2000).optional(),
  RATE_LIMIT_AUTH_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(10),
  RATE_LIMIT_GLOBAL_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
  AUTH_ACCOUNT_LOCK_AFTER: z.coerce.number().int().min(3).max(1000).default(10),
  AUTH_ACCOUNT_LOCK_MINUTES: z.coerce.number().int().min(1).max(1440).default(15),
  AUTH_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).max(1_000_000).default(20),
  AUTH_FAILURE_DELAY_MS: z.coerce.number().int().min(0).max(4000).default(250),
  VERIFY_CHECKS_PER_USER_PER_HOUR: z.coerce.number().int().min(1).max(100_000).default(60),
  VERIFY_CHECKS_PER_TARGET_PER_HOUR: z.coerce.number().int().min(1).max(100_000).default(20),
  TRUST_PROXY: bool.default(false),
  /** LISTEN: the API remembers session states and events totals; idle workers start queued scans at once (docs/deploy.md). */
  PERIMETER_CHANGE_FEED: bool.default(true),
  PERIMETER_ALLOW_PRIVATE_TARGETS: bool.default(false),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** Comma-separated `host:port` DNS servers for scans and verification; the system resolver when unset. */
  PERIMETER_DNS_SERVERS: z
    .string()
    .regex(/^\s*[^\s,]+(\s*,\s*[^\s,]+)*\s*$/, 'must be a comma-separated list of host:port')
    .optional(),
  /** Ports a scan probes: top100 (default), top1000, all, or a list like `22,80,8000-8100`. */
  PERIMETER_SCAN_PORTS: z.string().default('top100'),
  /** Comma-separated CIDRs: when set, scans may contact only these ranges (the lab uses 127.0.0.0/8). */
  PERIMETER_SCAN_ALLOW: z.string().optional(),
  /**
   * Comma-separated CIDRs where intrusive templates may run on hosts a verified domain points at,
   * without the user having proved the address (`0.0.0.0/0,::/0` for everywhere). Unset: only on
   * addresses inside the user's verified peers and networks.
   */
  PERIMETER_INTRUSIVE_ALLOW: z
    .string()
    .refine(
      (v) => v.split(',').every((c) => c.trim() === '' || /^[0-9a-fA-F.:]+\/\d{1,3}$/.test(c.trim())),
      'must be a comma-separated list of CIDRs',
    )
    .optional(),
  /**
   * Template requests per second of one scan (0: no limit), counted per host name unless
   * PERIMETER_TEMPLATE_RATE_LIMIT_PER says `scan`. Unset: the engine's politeness default
   * (150/s per host, docs/finding-families.md) — a customer's hosts are not flooded.
   */
  PERIMETER_TEMPLATE_RATE_LIMIT: z.coerce.number().int().min(0).max(100_000).optional(),
  /**
   * Over what that rate is counted: `host` (the default: each host of a scan on its own budget)
   * or `scan` (one budget across all the scan's hosts, as nuclei's -rate-limit).
   */
  PERIMETER_TEMPLATE_RATE_LIMIT_PER: z.enum(['host', 'scan']).optional(),
  /** Use only the first N labels of the built-in subdomain wordlist (all of them when unset). */
  PERIMETER_SCAN_WORDLIST_LIMIT: z.coerce.number().int().min(0).max(1_000_000).optional(),
  /** crt.sh-compatible certificate-transparency API for subdomain discovery; off when unset. */
  PERIMETER_CT_URL: z.url().optional(),
  /** Lease of a scan job: a worker that dies is replaced after this many seconds. */
  SCAN_JOB_EXPIRE_SECONDS: z.coerce.number().int().min(10).max(86_400).default(3600),
  /** Retries of a failed or expired scan job. */
  SCAN_JOB_RETRY_LIMIT: z.coerce.number().int().min(0).max(20).default(3),
  /** A running scan whose worker wrote no heartbeat (written every second) for this long is handed to another worker. */
  SCAN_HEARTBEAT_TIMEOUT_SECONDS: z.coerce.number().int().min(3).max(86_400).default(15),
  /** Port of the worker role's own health endpoints (`/live`, `/ready`) when it runs without the API; off when unset. */
  WORKER_HEALTH_PORT: z.coerce.number().int().min(1).max(65_535).optional(),
  /**
   * Vulnerability intelligence (modules/intel, docs/vulnerability-intel.md). Scheduled syncs run on
   * the worker unless INTEL_SYNC=false; under NODE_ENV=test they are off unless INTEL_SYNC=true.
   */
  INTEL_SYNC: bool.optional(),
  /** pg-boss cron (UTC) of the scheduled sync of every enabled source. */
  INTEL_SYNC_CRON: z
    .string()
    .refine((v) => {
      try {
        cronParser.parseExpression(v);
        return true;
      } catch {
        return false;
      }
    }, 'must be a cron expression')
    .default('17 */6 * * *'),
  /** Enabled sources, comma-separated (nvd,kev,epss,retire), or `none`. */
  INTEL_SOURCES: z
    .string()
    .regex(
      /^\s*(none|(nvd|kev|epss|retire)(\s*,\s*(nvd|kev|epss|retire))*)\s*$/,
      'must be a list of nvd,kev,epss,retire or none',
    )
    .default('nvd,kev,epss,retire'),
  INTEL_NVD_URL: optionalUrl(/^https?:$/).default('https://services.nvd.nist.gov/rest/json/cves/2.0'),
  INTEL_KEV_URL: optionalUrl(/^https?:$/).default(
    'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json',
  ),
  INTEL_EPSS_URL: optionalUrl(/^https?:$/).default('https://epss.cyentia.com/epss_scores-current.csv.gz'),
  INTEL_RETIRE_URL: optionalUrl(/^https?:$/).default(
    'https://raw.githubusercontent.com/RetireJS/retire.js/master/repository/jsrepository.json',
  ),
  /** NVD API key: 50 requests per rolling 30 s instead of 5. */
  NVD_API_KEY: z.string().optional(),
  /** Overrides the NVD request budget per rolling 30 s (a local mirror has none to respect). */
  INTEL_NVD_REQUESTS_PER_30S: z.coerce.number().int().min(1).max(100_000).optional(),
  /** The CVE database counts as stale when its newest successful sync is older than this. */
  INTEL_STALE_DAYS: z.coerce.number().int().min(1).max(3650).default(7),
  /** Leak providers queried by the leakcheck stage besides the local index (docs/finding-families.md). */
  HIBP_API_KEY: z.string().optional(),
  LEAKCHECK_API_KEY: z.string().optional(),
  DEHASHED_API_KEY: z.string().optional(),
  /**
   * Out-of-band interaction server (modules/oob, docs/oob.md): the zone delegated to it. Unset: the
   * out-of-band templates are skipped ("out-of-band checks not configured") and no listener starts.
   */
  PERIMETER_OOB_DOMAIN: z
    .string()
    .transform((v) => v.trim().toLowerCase().replace(/\.$/, ''))
    .refine(
      (v) => /^(?=.{1,200}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/.test(v),
      'must be a DNS name such as oob.example.com',
    )
    .optional(),
  /** The public IPv4 address of the interaction server: every A answer under the zone (required with the domain). */
  PERIMETER_OOB_IP: z.ipv4().optional(),
  /** Its IPv6 address, for AAAA answers; AAAA queries get an empty answer when unset. */
  PERIMETER_OOB_IPV6: z.ipv6().optional(),
  /** Address the listeners bind to. */
  PERIMETER_OOB_HOST: z.string().default('0.0.0.0'),
  /** Which listeners run, comma-separated: dns,http,https,ldap,smtp (https needs the certificate). */
  PERIMETER_OOB_LISTENERS: z
    .string()
    .regex(
      /^\s*(dns|http|https|ldap|smtp)(\s*,\s*(dns|http|https|ldap|smtp))*\s*$/,
      'must be a list of dns,http,https,ldap,smtp',
    )
    .default('dns,http,https,ldap,smtp'),
  PERIMETER_OOB_DNS_PORT: z.coerce.number().int().min(0).max(65_535).default(53),
  PERIMETER_OOB_HTTP_PORT: z.coerce.number().int().min(0).max(65_535).default(80),
  PERIMETER_OOB_HTTPS_PORT: z.coerce.number().int().min(0).max(65_535).default(443),
  PERIMETER_OOB_LDAP_PORT: z.coerce.number().int().min(0).max(65_535).default(389),
  PERIMETER_OOB_SMTP_PORT: z.coerce.number().int().min(0).max(65_535).default(25),
  /** PEM files of a certificate for the zone (e.g. a wildcard): the HTTPS listener runs when both are set. */
  PERIMETER_OOB_TLS_CERT: z.string().optional(),
  PERIMETER_OOB_TLS_KEY: z.string().optional(),
  /** How long a scan's correlation accepts call-backs, and its interactions are kept. */
  PERIMETER_OOB_RETENTION_HOURS: z.coerce.number().int().min(1).max(8760).default(168),
  /** How long a template waits for its call-backs after its requests (the engine's default when unset). */
  PERIMETER_OOB_WAIT_MS: z.coerce.number().int().min(0).max(120_000).optional(),
  /** At most this many interactions are stored per scan run; the rest are counted and dropped. */
  PERIMETER_OOB_MAX_PER_SCAN: z.coerce.number().int().min(1).max(1_000_000).default(2000),
  /** Call-backs accepted per second from one source address (the rest are dropped). */
  PERIMETER_OOB_RATE_PER_ADDRESS: z.coerce.number().int().min(1).max(1_000_000).default(200),
  /** Billing (modules/billing, docs/billing.md): currency of prices; Stripe when STRIPE_SECRET_KEY is set, else the local provider. */
  BILLING_CURRENCY: z.enum(['usd', 'aed']).default('usd'),
  STRIPE_SECRET_KEY: z.string().optional(),
  STRIPE_WEBHOOK_SECRET: z.string().optional(),
  STRIPE_API_BASE: optionalUrl(/^https?:$/),
  STRIPE_PRICE_TRY_IT: z.string().optional(),
  STRIPE_PRICE_STARTER_MONTHLY: z.string().optional(),
  STRIPE_PRICE_STARTER_YEARLY: z.string().optional(),
  STRIPE_PRICE_BUSINESS_MONTHLY: z.string().optional(),
  STRIPE_PRICE_BUSINESS_YEARLY: z.string().optional(),
  BILLING_LOCAL_PROMO_CODES: z
    .string()
    .regex(/^([0-9A-Za-z_-]+:\d{1,3})?(,[0-9A-Za-z_-]+:\d{1,3})*$/, 'must be CODE:percent,...')
    .default('WELCOME10:10'),
});
export type TEnv = z.infer<typeof ZEnv>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Reads the environment once; a bad value stops start-up with the list of what is wrong. */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): TEnv {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = ZEnv.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  if (parsed.data.PERIMETER_OOB_DOMAIN && !parsed.data.PERIMETER_OOB_IP)
    throw new ConfigError([
      'PERIMETER_OOB_IP: required with PERIMETER_OOB_DOMAIN (the address A answers under the zone give)',
    ]);
  return parsed.data;
}
