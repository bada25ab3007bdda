import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttp } from '../../test/template-helpers.ts';
import { NpmRegistry } from './npm-registry.ts';

let srv: Awaited<ReturnType<typeof startHttp>>;
const hits: string[] = [];

beforeAll(async () => {
  srv = await startHttp((req, res) => {
    hits.push(req.url ?? '');
    res.setHeader('Content-Type', 'application/json');
    // Shapes of registry.npmjs.org/<name> (abbreviated) and api.npmjs.org/downloads/point/last-month/<name>.
    if (req.url === '/jquery') {
      res.end(
        JSON.stringify({
          name: 'jquery',
          'dist-tags': { latest: '3.7.1', beta: '4.0.0-beta' },
          homepage: 'https://jquery.com',
          repository: { type: 'git', url: 'git+https://github.com/jquery/jquery.git' },
        }),
      );
    } else if (req.url === '/downloads/point/last-month/jquery') {
      res.end(
        JSON.stringify({ downloads: 11893341, start: '2026-10-01', end: '2026-10-30', package: 'jquery' }),
      );
    } else if (req.url === '/@scope%2Fpkg') {
      res.end(JSON.stringify({ 'dist-tags': { latest: '1.0.0' }, repository: 'github:scope/pkg' }));
    } else if (req.url === '/broken') {
      res.end('{not json');
    } else {
      res.statusCode = 404;
      res.end(JSON.stringify({ error: 'Not found' }));
    }
  });
});

afterAll(async () => {
  await srv.close();
});

describe('npm registry metadata', () => {
  it('reads latest version, monthly downloads, repository and homepage, and caches them', async () => {
    const npm = new NpmRegistry({ registryUrl: srv.url, downloadsUrl: srv.url });
    const info = await npm.info('jquery');
    expect(info).toEqual({
      latestVersion: '3.7.1',
      downloadsPerMonth: 11893341,
      repository: 'https://github.com/jquery/jquery',
      homepage: 'https://jquery.com',
    });
    const before = hits.length;
    await npm.info('jquery');
    expect(hits.length).toBe(before);
  });

  it('encodes scoped names and expands github shorthands', async () => {
    const npm = new NpmRegistry({ registryUrl: srv.url, downloadsUrl: srv.url });
    expect(await npm.info('@scope/pkg')).toEqual({
      latestVersion: '1.0.0',
      repository: 'https://github.com/scope/pkg',
    });
  });

  it('answers empty, never an error, for 404, bad JSON and an unreachable registry', async () => {
    const npm = new NpmRegistry({ registryUrl: srv.url, downloadsUrl: srv.url });
    expect(await npm.info('missing')).toEqual({});
    expect(await npm.info('broken')).toEqual({});
    const offline = new NpmRegistry({
      registryUrl: 'http://127.0.0.1:1',
      downloadsUrl: 'http://127.0.0.1:1',
      timeoutMs: 500,
    });
    expect(await offline.info('jquery')).toEqual({});
    const throwing = new NpmRegistry({ fetch: () => Promise.reject(new Error('offline')) });
    expect(await throwing.info('jquery')).toEqual({});
  });
});
