import type { IncomingMessage, ServerResponse } from 'node:http';

export interface SiteContext {
  isPlanted(id: string): boolean;
  /** crt.sh-style rows per domain for the CT site. */
  ctNames: Record<string, string[]>;
}

export type SiteHandler = (req: IncomingMessage, res: ServerResponse) => void;

// A small fixed favicon (16 bytes of ICO header + padding): enough for favicon hashing.
const FAVICON = Buffer.from(
  'AAABAAEAEBAQAAEABAAoAQAAFgAAACgAAAAQAAAAIAAAAAEABAAAAAAAgAAAAAAAAAAAAAAAEAAAAAAAAAA=',
  'base64',
);

const SECURITY_HEADERS: Record<string, string> = {
  'Strict-Transport-Security': 'max-age=31536000',
  'Content-Security-Policy': "default-src 'self'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

function send(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  headers: Record<string, string> = {},
  contentType = 'text/html; charset=utf-8',
): void {
  res.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

function page(title: string, body: string, head = ''): string {
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${body}</body></html>\n`;
}

const PASSWD =
  'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\nwww-data:x:33:33:www-data:/var/www:/usr/sbin/nologin\n';

function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0] ?? '/';
}

function nginxSite(ctx: SiteContext): SiteHandler {
  return (req, res) => {
    const outdated = ctx.isPlanted('LAB-WWW-NGINX-OUTDATED');
    const server = { Server: outdated ? 'nginx/1.14.0' : 'nginx/1.26.2' };
    const headers = ctx.isPlanted('LAB-WWW-MISSING-HEADERS') ? server : { ...server, ...SECURITY_HEADERS };
    const jq = ctx.isPlanted('LAB-WWW-JQUERY-OUTDATED') ? '1.12.4' : '3.7.1';
    const path = pathOf(req);
    if (path === '/') {
      return send(
        res,
        200,
        page(
          'Acme Corp',
          `<h1>Acme Corp</h1><p>Contact: <a href="mailto:info@acme.test">info@acme.test</a>, security reports to security@acme.test.</p>`,
          `<script src="/js/jquery-${jq}.min.js"></script>`,
        ),
        headers,
      );
    }
    if (path === `/js/jquery-${jq}.min.js`) {
      return send(
        res,
        200,
        `/*! jQuery v${jq} | (c) jQuery Foundation | jquery.org/license */\n`,
        headers,
        'application/javascript',
      );
    }
    if (path === '/favicon.ico') return send(res, 200, FAVICON, headers, 'image/x-icon');
    return send(
      res,
      404,
      page('404 Not Found', '<center><h1>404 Not Found</h1></center><hr><center>nginx</center>'),
      headers,
    );
  };
}

function appSite(ctx: SiteContext): SiteHandler {
  return (req, res) => {
    const headers = {
      Server: ctx.isPlanted('LAB-APP-APACHE-CVE-2021-41773')
        ? 'Apache/2.4.49 (Unix)'
        : 'Apache/2.4.62 (Unix)',
      ...(ctx.isPlanted('LAB-APP-PHP-EOL')
        ? { 'X-Powered-By': 'PHP/5.6.40' }
        : { 'X-Powered-By': 'PHP/8.3.14' }),
    };
    const raw = req.url ?? '/';
    const path = pathOf(req);
    if (
      ctx.isPlanted('LAB-APP-APACHE-CVE-2021-41773') &&
      /\.%2e\//i.test(raw) &&
      raw.includes('etc/passwd')
    ) {
      return send(res, 200, PASSWD, headers, 'text/plain');
    }
    if (path === '/') {
      return send(
        res,
        200,
        page(
          'Acme App',
          '<h1>Acme App</h1><form method="post" action="/login.php"><input name="user"><input type="password" name="pass"></form>',
        ),
        headers,
      );
    }
    if (path === '/.git/config' && ctx.isPlanted('LAB-APP-GIT-CONFIG')) {
      return send(
        res,
        200,
        '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n[remote "origin"]\n\turl = https://git.acme.test/acme/app.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n',
        headers,
        'text/plain',
      );
    }
    if (path === '/.env' && ctx.isPlanted('LAB-APP-DOTENV')) {
      return send(
        res,
        200,
        'APP_ENV=production\nAPP_KEY=base64:ZmFrZS1sYWIta2V5LW5vdC1hLXJlYWwtc2VjcmV0MDA=\nDB_HOST=db.acme.test\nDB_DATABASE=acme\nDB_USERNAME=acme\nDB_PASSWORD=FakeLabPassw0rd!\nAWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nMAIL_FROM_ADDRESS=noreply@acme.test\n',
        headers,
        'text/plain',
      );
    }
    if (path === '/phpinfo.php' && ctx.isPlanted('LAB-APP-PHPINFO')) {
      return send(
        res,
        200,
        page(
          'phpinfo()',
          '<table><tr class="h"><td><h1 class="p">PHP Version 5.6.40</h1></td></tr></table><table><tr><td class="e">System </td><td class="v">Linux app 4.15.0 x86_64 </td></tr><tr><td class="e">Server API </td><td class="v">Apache 2.0 Handler </td></tr></table>',
        ),
        headers,
      );
    }
    if ((path === '/uploads/' || path === '/uploads') && ctx.isPlanted('LAB-APP-DIRLIST')) {
      return send(
        res,
        200,
        '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">\n<html>\n <head>\n  <title>Index of /uploads</title>\n </head>\n <body>\n<h1>Index of /uploads</h1>\n<ul><li><a href="/"> Parent Directory</a></li>\n<li><a href="backup-2019.sql.gz"> backup-2019.sql.gz</a></li>\n<li><a href="invoice-1042.pdf"> invoice-1042.pdf</a></li>\n</ul>\n</body></html>\n',
        headers,
      );
    }
    return send(
      res,
      404,
      page('404 Not Found', '<h1>Not Found</h1><p>The requested URL was not found on this server.</p>'),
      headers,
    );
  };
}

function grafanaSite(ctx: SiteContext): SiteHandler {
  return (req, res) => {
    const version = ctx.isPlanted('LAB-GRAFANA-CVE-2021-43798') ? '8.3.0' : '11.3.1';
    const raw = req.url ?? '/';
    const path = pathOf(req);
    const headers = { 'X-Frame-Options': 'deny', 'X-Content-Type-Options': 'nosniff' };
    if (
      ctx.isPlanted('LAB-GRAFANA-CVE-2021-43798') &&
      /^\/public\/plugins\/[a-z0-9-]+\/(\.\.|%2e%2e)/i.test(raw) &&
      raw.includes('etc/passwd')
    ) {
      return send(res, 200, PASSWD, headers, 'text/plain');
    }
    if (path === '/')
      return send(res, 302, '<a href="/login">Found</a>.\n', { ...headers, Location: '/login' });
    if (path === '/login' && ctx.isPlanted('LAB-GRAFANA-LOGIN')) {
      return send(
        res,
        200,
        page(
          'Grafana',
          `<div class="main-view"><div class="login-content">Welcome to Grafana</div></div><script>window.grafanaBootData = {"settings":{"buildInfo":{"version":"${version}","commit":"d4f4a8b","env":"production","edition":"Open Source"}},"user":{"isSignedIn":false}};</script>`,
          '<base href="/" /><link rel="icon" type="image/png" href="public/img/fav32.png">',
        ),
        { ...headers, 'Set-Cookie': 'redirect_to=%2F; Path=/; HttpOnly; SameSite=Lax' },
      );
    }
    if (path === '/api/health') {
      return send(
        res,
        200,
        JSON.stringify({ commit: 'd4f4a8b', database: 'ok', version }),
        headers,
        'application/json',
      );
    }
    return send(res, 404, page('Grafana', '<h1>Page not found</h1>'), headers);
  };
}

function apiSite(ctx: SiteContext): SiteHandler {
  return (req, res) => {
    const headers: Record<string, string> = { 'X-Powered-By': 'Express' };
    const origin = req.headers.origin;
    if (origin && ctx.isPlanted('LAB-API-CORS')) {
      headers['Access-Control-Allow-Origin'] = origin;
      headers['Access-Control-Allow-Credentials'] = 'true';
    }
    const url = new URL(req.url ?? '/', 'http://api.acme.test');
    if (url.pathname === '/redirect') {
      const to = url.searchParams.get('url') ?? '/';
      if (ctx.isPlanted('LAB-API-OPEN-REDIRECT') || to.startsWith('/')) {
        return send(res, 302, `Found. Redirecting to ${to}`, { ...headers, Location: to }, 'text/plain');
      }
      return send(
        res,
        400,
        JSON.stringify({ error: 'redirect target not allowed' }),
        headers,
        'application/json',
      );
    }
    if (url.pathname === '/') {
      return send(
        res,
        200,
        JSON.stringify({ service: 'acme-api', status: 'ok', contact: 'api-team@acme.test' }),
        headers,
        'application/json; charset=utf-8',
      );
    }
    return send(res, 404, JSON.stringify({ error: 'not found' }), headers, 'application/json; charset=utf-8');
  };
}

function simpleSite(title: string, headers: Record<string, string>, body: string, head = ''): SiteHandler {
  return (req, res) => {
    if (pathOf(req) === '/') return send(res, 200, page(title, body, head), headers);
    return send(res, 404, page('404 Not Found', '<h1>404 Not Found</h1>'), headers);
  };
}

function jenkinsSite(): SiteHandler {
  return (req, res) => {
    const headers = {
      Server: 'Jetty(9.4.14.v20181114)',
      'X-Jenkins': '2.150.1',
      'X-Hudson': '1.395',
      'X-Jenkins-Session': '5f1c2e9a',
    };
    if (pathOf(req) === '/') {
      return send(
        res,
        200,
        page('Dashboard [Jenkins]', '<div id="jenkins"><a href="/view/all/newJob">New Item</a></div>'),
        headers,
      );
    }
    return send(res, 404, page('Error 404 Not Found', '<h2>HTTP ERROR 404</h2>'), headers);
  };
}

function wordpressSite(): SiteHandler {
  return (req, res) => {
    const headers = {
      Server: 'Apache/2.4.29 (Ubuntu)',
      Link: '<http://portal.wild.test/wp-json/>; rel="https://api.w.org/"',
    };
    if (pathOf(req) === '/') {
      return send(
        res,
        200,
        page(
          'Wild Portal &#8211; Just another WordPress site',
          '<div class="site"><p>Questions? webmaster@wild.test</p></div><script src="http://portal.wild.test/wp-includes/js/wp-embed.min.js?ver=4.7.1"></script>',
          '<meta name="generator" content="WordPress 4.7.1" /><link rel="stylesheet" href="http://portal.wild.test/wp-content/themes/twentyseventeen/style.css?ver=4.7.1" /><script src="http://portal.wild.test/wp-includes/js/jquery/jquery.js?ver=1.12.4"></script>',
        ),
        headers,
      );
    }
    return send(res, 404, page('Page not found', '<h1>Oops! That page can&rsquo;t be found.</h1>'), headers);
  };
}

function ctSite(ctx: SiteContext): SiteHandler {
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://ct.lab');
    const q = (url.searchParams.get('q') ?? '').replace(/^%\.?/, '').replace(/^\*\./, '').toLowerCase();
    const names = ctx.ctNames[q] ?? [];
    const rows = names.map((n, i) => ({
      issuer_ca_id: 1000 + i,
      issuer_name: 'C=US, O=Lab CA, CN=Lab Issuing CA',
      common_name: n,
      name_value: n,
      id: 9000000 + i,
      entry_timestamp: '2023-05-01T10:00:00.000',
      not_before: '2023-05-01T00:00:00',
      not_after: '2023-07-30T23:59:59',
      serial_number: (0xabc000 + i).toString(16),
    }));
    return send(res, 200, JSON.stringify(rows), {}, 'application/json');
  };
}

function jumpSite(): SiteHandler {
  return (_req, res) =>
    send(res, 302, 'moved', { Location: 'http://169.254.169.254/latest/meta-data/' }, 'text/plain');
}

export function createSite(name: string, ctx: SiteContext): SiteHandler {
  switch (name) {
    case 'www':
      return nginxSite(ctx);
    case 'app':
      return appSite(ctx);
    case 'grafana':
      return grafanaSite(ctx);
    case 'api':
      return apiSite(ctx);
    case 'secure':
      return simpleSite('Acme Secure Portal', { Server: 'lighttpd/1.4.45' }, '<h1>Secure portal</h1>');
    case 'jenkins':
      return jenkinsSite();
    case 'iis':
      return simpleSite(
        'IIS7',
        { Server: 'Microsoft-IIS/7.5', 'X-Powered-By': 'ASP.NET', 'X-AspNet-Version': '2.0.50727' },
        '<div id="container"><img src="welcome.png" alt="IIS7" /></div>',
      );
    case 'parked':
      return simpleSite('Parked domain', { Server: 'nginx' }, '<p>This domain is parked.</p>');
    case 'wordpress':
      return wordpressSite();
    case 'legacy':
      return simpleSite(
        'Legacy VPN portal',
        { Server: 'Apache/2.2.15 (CentOS)' },
        '<h1>Legacy VPN portal</h1><p>Use the new portal.</p>',
      );
    case 'jump':
      return jumpSite();
    case 'ct':
      return ctSite(ctx);
    default:
      throw new Error(`unknown lab site ${name}`);
  }
}
