// Throwaway visual check (not committed): the events page on the Vite dev server with the API stubbed.
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
async function axe(page, name) {
  await page.addScriptTag({ content: axeSource });
  const res = await page.evaluate(async () => (await window.axe.run(document)).violations.map((v) => ({ id: v.id, impact: v.impact, n: v.nodes.map((x) => x.target.join(' ')).slice(0, 3) })));
  const bad = res.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  console.log(name, JSON.stringify(bad));
}

const user = {
  id: 'u1',
  email: 'ada@example.com',
  first_name: 'Ada',
  last_name: 'Lovelace',
  company: 'AE',
  tz: 'Europe/London',
  language: 'en',
  metadata: { email_verified: true, agreement_status: true, '2fa_enable': true },
  notifications: { scan_finished: true, new_critical_high: true },
  tariffs: [{ name: 'business' }],
  date_joined: '2026-01-01T00:00:00Z',
};
const life = {
  user_target_id: 't1',
  fingerprint: 'f',
  severity: 'high',
  severity_ordering: 4,
  main_domain: 'acme.test',
  status: 'open',
  resolved: false,
  resolved_reason: null,
  add_ts: '2026-11-01T10:00:00Z',
  first_seen: '2026-11-01T10:00:00Z',
  last_seen: '2026-11-02T10:00:00Z',
  fixed_at: null,
};
const vulns = [1, 2, 3].map((n) => ({
  ...life,
  id: `00000000-0000-4000-8000-00000000000${n}`,
  severity: ['critical', 'high', 'medium'][n - 1],
  scan_subclass: 'exploit_scanner',
  template_id: 'git-config',
  name: `Exposed .git/config ${n}`,
  host: 'https://www.acme.test',
  subdomain: 'www.acme.test',
  matched_at: 'https://www.acme.test/.git/config',
  description: 'The git configuration is served.',
  impact: 'Source code can be downloaded.',
  remediation: 'Deny /.git.',
  references: ['https://owasp.org/git'],
  tags: ['git'],
  extracted: [],
  classification: { 'cwe-id': ['CWE-200'], 'cvss-score': 7.5 },
  evidence: {
    request: 'GET /.git/config HTTP/1.1\nHost: www.acme.test',
    response: 'HTTP/1.1 200 OK\n\n[core]',
    curl: "curl -sk 'https://www.acme.test/.git/config'",
  },
}));
const cves = [
  {
    ...life,
    id: '00000000-0000-4000-8000-000000000011',
    severity: 'critical',
    scan_subclass: 'exploit_db',
    tech: 'Apache httpd',
    version: '2.4.49',
    cve: 'CVE-2021-41773',
    host: 'www.acme.test',
    subdomain: 'www.acme.test',
    port: 443,
    cvss_score: 9.8,
    cvss_vector: 'CVSS:3.1/AV:N',
    description: 'Path traversal.',
    info_created_ts: '2021-10-05T00:00:00Z',
    info_updated_ts: '2021-10-20T00:00:00Z',
    last_update_ts: '2026-11-01T00:00:00Z',
    last_check_ts: '2026-11-02T00:00:00Z',
    version_start: '2.4.49',
    version_end: '2.4.50',
    latest_version: '2.4.62',
    homepage: 'https://httpd.apache.org/',
    downloads_per_month: 12345,
    source_repository: 'https://github.com/apache/httpd',
    cwe: ['CWE-22'],
    references: [],
  },
];
const leaks = [
  {
    ...life,
    id: '00000000-0000-4000-8000-000000000021',
    scan_subclass: 'leakcheck',
    email: 'admin@acme.test',
    password: 'hu******23',
    leak_date: '2023-04-01',
    sources: ['Collection #1'],
  },
];
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
await page.route('http://127.0.0.1:5399/api/**', (route) => {
  const url = new URL(route.request().url());
  const p = url.pathname;
  let data = null;
  if (p.endsWith('/users/user/')) data = user;
  else if (p.includes('scan_events')) {
    const sub = JSON.parse(route.request().postData() ?? '{}').scan_subclass;
    data = {
      items: sub === 'exploit_db' ? cves : sub === 'leakcheck' ? leaks : vulns,
      total: 12000,
      total_exact: false,
    };
  } else if (p.includes('maintenance')) data = { maintenance_mode: false, message: '' };
  return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ data }) });
});
await page.goto('http://127.0.0.1:5399/login');
for (const [mode, lng, dir] of [
  ['light', 'en', 'ltr'],
  ['dark', 'ru', 'ltr'],
  ['light', 'en', 'rtl'],
]) {
  await page.evaluate(
    ({ mode, lng, dir }) => {
      localStorage.setItem('accessToken', 'a');
      localStorage.setItem('refreshToken', 'r');
      localStorage.setItem('agreementAccepted', 'true');
      localStorage.setItem('perimeter-ui-preferences', JSON.stringify({ mode, themeDirection: dir }));
      localStorage.setItem('locale', lng);
      document.cookie = 'cookieConsent=true; path=/';
    },
    { mode, lng, dir },
  );
  for (const tab of ['vulnerabilities', 'cve', 'leaks']) {
    await page.goto(`http://127.0.0.1:5399/events/${tab}?severity=critical,high`);
    try {
      await page.waitForSelector('table', { timeout: 30000 });
    } catch (e) {
      await page.screenshot({ path: '/tmp/ev/shots/fail.png' });
      console.log(page.url());
      throw e;
    }
    await page.waitForTimeout(500);
    await page.screenshot({ path: `/tmp/ev/shots/${tab}-${mode}-${lng}-${dir}.png`, fullPage: true });
    await axe(page, `${tab}-${mode}-${lng}-${dir}`);
    await page.locator('tbody tr').first().click();
    await page.waitForSelector('[role=dialog]');
    await page.waitForTimeout(400);
    await page.screenshot({ path: `/tmp/ev/shots/${tab}-dialog-${mode}-${lng}-${dir}.png` });
    await axe(page, `${tab}-dialog-${mode}-${lng}-${dir}`);
    await page.keyboard.press('Escape');
  }
}
await browser.close();
console.log('ok');
