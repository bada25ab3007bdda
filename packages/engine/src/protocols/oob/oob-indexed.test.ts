import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileOrThrow, scanAll, startHttp, tpl } from '../../../test/template-helpers.ts';
import { interactionParts } from './oob-markers.ts';
import type { OobInteraction, OobProvider } from './oob-types.ts';

// Indexed call-back parts: `interactsh_protocol_2` is the call-back of the name the run's second
// request sent (as `status_code_2` is that request's status). The target "calls back" only for
// the name it got on /b, as a vulnerable endpoint's DNS lookup would.

const DOMAIN = 'oob.perimeter.test';

class FakeProvider implements OobProvider {
  readonly domain = DOMAIN;
  readonly recorded: OobInteraction[] = [];
  private n = 0;

  newId(): string {
    this.n++;
    return `scan0000000000000000${this.n.toString(36).padStart(13, '0')}`;
  }

  async poll(ids: readonly string[]): Promise<OobInteraction[]> {
    const wanted = new Set(ids);
    return this.recorded.filter((i) => wanted.has(i.id));
  }

  push(name: string): void {
    this.recorded.push({
      id: name.split('.').find((l) => /^scan0{16}/.test(l)) ?? '',
      protocol: 'dns',
      remoteAddress: '127.0.75.1',
      at: new Date().toISOString(),
      rawRequest: `;${name.toUpperCase()}.\tIN\tA`,
      rawResponse: '',
      qType: 'A',
    });
  }
}

let provider: FakeProvider;
let server: Awaited<ReturnType<typeof startHttp>>;

beforeAll(async () => {
  server = await startHttp((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/b') {
      provider.push(url.searchParams.get('u') ?? '');
      res.setHeader('X-Interactsh-Version', '1.2.0');
    }
    res.end('ok');
  }, '127.0.75.1');
});

afterAll(async () => {
  await server.close();
});

/** Two requests, one call-back name each: only the second one's name is called back. */
const TWO_NAMES = (id: string, matchers: string) =>
  tpl(
    id,
    `http:
  - method: GET
    path:
      - "{{BaseURL}}/a?u={{interactsh-url}}"
      - "{{BaseURL}}/b?u={{interactsh-url}}"
    matchers-condition: or
    matchers:
${matchers}`,
    'high',
  );

const CORPUS_SHAPE = (first: string) =>
  compileOrThrow(
    tpl(
      `oob-indexed-corpus-shape-${first.replace(/\W/g, '')}`,
      `http:
  - method: GET
    path:
      - "{{BaseURL}}/${first}"
      - "{{BaseURL}}/b?u=nextchat.{{interactsh-url}}"
    matchers-condition: or
    matchers:
      - type: dsl
        dsl:
          - contains(body_1, "<script>alert(document.domain)</script>")
          - contains(header_1, "text/html")
        condition: and
      - type: dsl
        dsl:
          - contains(header_2,'X-Interactsh-Version')
          - contains(interactsh_protocol_2,'dns')
        condition: and
`,
      'critical',
    ),
  );

describe('indexed out-of-band parts', () => {
  it('fill interactsh_*_N from the call-back of the name the N-th request sent, not the others', async () => {
    provider = new FakeProvider();
    const t = compileOrThrow(
      TWO_NAMES(
        'oob-indexed',
        `      - type: word
        name: first
        part: interactsh_protocol_1
        words: [dns]
      - type: dsl
        name: second
        dsl: ["contains(interactsh_protocol_2, 'dns') && contains(interactsh_request_2, '${DOMAIN}')"]
`,
      ),
    );
    const { findings } = await scanAll([t], [server.url], {
      oob: { provider, waitMs: 3000, pollIntervalMs: 50 },
    });
    expect(provider.recorded).toHaveLength(1);
    expect(findings.map((f) => f.matcherName)).toEqual(['second']);
    // The finding is the second request's, with the call-back as evidence.
    expect(findings[0]?.matchedAt).toContain('/b?u=');
    expect(findings[0]?.evidence?.interactions?.[0]?.id).toBe(provider.recorded[0]?.id);
  });

  it('stay silent when the matcher reads the index whose name got no call-back', async () => {
    provider = new FakeProvider();
    const t = compileOrThrow(
      TWO_NAMES(
        'oob-indexed-first',
        `      - type: word
        part: interactsh_protocol_1
        words: [dns]
`,
      ),
    );
    const { findings } = await scanAll([t], [server.url], {
      oob: { provider, waitMs: 400, pollIntervalMs: 50 },
    });
    expect(provider.recorded).toHaveLength(1);
    expect(findings).toEqual([]);
  });

  it("decide like the corpus's CVE-2023-49785: the second request's header and call-back together", async () => {
    provider = new FakeProvider();
    const t = CORPUS_SHAPE('a');
    expect(t.oob).toBe(true);
    const { findings } = await scanAll([t], [server.url], {
      oob: { provider, waitMs: 3000, pollIntervalMs: 50 },
    });
    expect(findings).toHaveLength(1);
    expect(findings[0]?.matchedAt).toContain('/b?u=nextchat.');
  });

  it('name the parts as nuclei does, a DNS request lowercased', () => {
    const i: OobInteraction = {
      id: 'x',
      protocol: 'dns',
      remoteAddress: '127.0.75.9',
      at: '2026-01-01T00:00:00.000Z',
      rawRequest: ';X.OOB.\tIN\tA',
      rawResponse: 'r',
    };
    expect(interactionParts(i)).toEqual({
      interactsh_protocol: 'dns',
      interactsh_request: ';x.oob.\tin\ta',
      interactsh_response: 'r',
      interactsh_ip: '127.0.75.9',
    });
    expect(interactionParts(i, 3)).toMatchObject({
      interactsh_protocol_3: 'dns',
      interactsh_ip_3: '127.0.75.9',
    });
  });
});
