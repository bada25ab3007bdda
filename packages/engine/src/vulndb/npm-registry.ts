/** What the npm registry tells about a JavaScript library (all optional: absent offline). */
export interface NpmPackageInfo {
  latestVersion?: string;
  downloadsPerMonth?: number;
  repository?: string;
  homepage?: string;
}

export interface NpmRegistryOptions {
  /** Registry base URL (default https://registry.npmjs.org). */
  registryUrl?: string;
  /** Downloads API base URL (default https://api.npmjs.org). */
  downloadsUrl?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** Cache lifetime (default 24 h). */
  ttlMs?: number;
}

function repositoryUrl(repo: unknown): string | undefined {
  const raw =
    typeof repo === 'string'
      ? repo
      : repo && typeof repo === 'object'
        ? (repo as { url?: unknown }).url
        : undefined;
  if (typeof raw !== 'string' || raw === '') return undefined;
  const gh = /^github:(.+)$/.exec(raw) ?? /^([\w.-]+\/[\w.-]+)$/.exec(raw);
  if (gh) return `https://github.com/${gh[1]}`;
  return raw
    .replace(/^git\+/, '')
    .replace(/^git:\/\//, 'https://')
    .replace(/^ssh:\/\/git@/, 'https://')
    .replace(/\.git$/, '');
}

/**
 * npm registry metadata behind an injectable fetch, cached. Never throws: a failure (offline,
 * 404, bad JSON, timeout) gives an empty answer, also cached for a short while.
 */
export class NpmRegistry {
  private readonly cache = new Map<string, { at: number; value: Promise<NpmPackageInfo> }>();
  private readonly registryUrl: string;
  private readonly downloadsUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;
  private readonly ttlMs: number;

  constructor(options: NpmRegistryOptions = {}) {
    this.registryUrl = (options.registryUrl ?? 'https://registry.npmjs.org').replace(/\/$/, '');
    this.downloadsUrl = (options.downloadsUrl ?? 'https://api.npmjs.org').replace(/\/$/, '');
    this.fetchImpl = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.ttlMs = options.ttlMs ?? 24 * 3600 * 1000;
  }

  private async getJson(url: string): Promise<Record<string, unknown> | undefined> {
    try {
      const res = await this.fetchImpl(url, {
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: { accept: 'application/json' },
      });
      if (!res.ok) return undefined;
      const body = (await res.json()) as unknown;
      return body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }

  private async load(name: string): Promise<NpmPackageInfo> {
    const encoded = name.startsWith('@') ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name);
    const [meta, downloads] = await Promise.all([
      this.getJson(`${this.registryUrl}/${encoded}`),
      this.getJson(`${this.downloadsUrl}/downloads/point/last-month/${encoded}`),
    ]);
    const info: NpmPackageInfo = {};
    const latest = (meta?.['dist-tags'] as { latest?: unknown } | undefined)?.latest;
    if (typeof latest === 'string') info.latestVersion = latest;
    const repo = repositoryUrl(meta?.repository);
    if (repo) info.repository = repo;
    if (typeof meta?.homepage === 'string') info.homepage = meta.homepage;
    if (typeof downloads?.downloads === 'number') info.downloadsPerMonth = downloads.downloads;
    return info;
  }

  /** Metadata of a package; `{}` when the registry cannot be reached. */
  info(name: string): Promise<NpmPackageInfo> {
    const key = name.toLowerCase();
    const hit = this.cache.get(key);
    const now = Date.now();
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    const value = this.load(name).then((info) => {
      // Remember failures only briefly so a registry that comes back is used again.
      if (Object.keys(info).length === 0)
        this.cache.set(key, { at: now - this.ttlMs + 60000, value: Promise.resolve(info) });
      return info;
    });
    this.cache.set(key, { at: now, value });
    return value;
  }
}

/** retire.js library names that differ from their npm package names. */
export const RETIRE_TO_NPM: Record<string, string> = {
  'jquery-ui': 'jquery-ui',
  angularjs: 'angular',
  'moment.js': 'moment',
  'underscore.js': 'underscore',
  'backbone.js': 'backbone',
  DOMPurify: 'dompurify',
  tinyMCE: 'tinymce',
  prototypejs: 'prototype',
  'mustache.js': 'mustache',
  'chart.js': 'chart.js',
  threejs: 'three',
  highlightjs: 'highlight.js',
  'pdf.js': 'pdfjs-dist',
  'video.js': 'video.js',
  ember: 'ember-source',
  vue: 'vue',
};
