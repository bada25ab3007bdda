import { describe, expect, it } from 'vitest';
import {
  decodeEntities,
  extractEmails,
  extractFaviconHref,
  extractInlineScripts,
  extractMeta,
  extractScriptSrc,
  extractTitle,
} from './html.ts';

const PAGE = `<!doctype html><html><head><title>
  Wild Portal &#8211; Just &amp; another</title>
<meta name="generator" content="WordPress 4.7.1" /><meta property="og:site_name" content='Acme'>
<link rel="shortcut icon" href="/static/fav.ico">
<script src="/js/jquery-1.12.4.min.js"></script><script>var a = 1;</script>
</head><body>Mail INFO@Acme.test or sales@acme.test.</body></html>`;

describe('html helpers', () => {
  it('extracts title, meta, scripts, favicon and e-mails', () => {
    expect(extractTitle(PAGE)).toBe('Wild Portal – Just & another');
    expect(extractMeta(PAGE)).toEqual({ generator: ['WordPress 4.7.1'], 'og:site_name': ['Acme'] });
    expect(extractScriptSrc(PAGE)).toEqual(['/js/jquery-1.12.4.min.js']);
    expect(extractInlineScripts(PAGE)).toEqual(['var a = 1;']);
    expect(extractFaviconHref(PAGE)).toBe('/static/fav.ico');
    expect(extractEmails(PAGE).sort()).toEqual(['info@acme.test', 'sales@acme.test']);
  });

  it('decodes entities', () => {
    expect(decodeEntities('&lt;a&gt; &#x41;&#66; &nbsp;&bogus;')).toBe('<a> AB \u00a0&bogus;');
  });
});
