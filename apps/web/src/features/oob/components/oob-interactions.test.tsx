import type { TOobInteraction, TScan } from '@perimeter/contracts';
import { configure, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { LateInteractionsCard, OobInteractions } from './oob-interactions.tsx';

configure({ asyncUtilTimeout: 5000 });
afterEach(() => vi.unstubAllGlobals());

const ID = 'abcdefghij0123456789klmnopqrstuvw';
const dns: TOobInteraction = {
  id: ID,
  protocol: 'dns',
  remote_address: '203.0.113.7',
  at: '2026-11-01T10:00:00Z',
  raw_request: `;; QUESTION\n${ID}.oob.example.com. IN A`,
  raw_response: ';; NOERROR',
  q_type: 'A',
};
const http: TOobInteraction = { ...dns, protocol: 'http', q_type: null, raw_request: 'GET /x HTTP/1.1' };

describe('out-of-band interactions', () => {
  it('the details dialog lists each call-back: protocol, source, raw request; late ones say so', async () => {
    renderApp(<OobInteractions interactions={[dns, http]} late />, { auth: signedIn(makeUser()) });
    const items = await screen.findAllByTestId('oob-interaction');
    expect(items).toHaveLength(2);
    expect(items[0]).toHaveTextContent('DNS A');
    expect(items[0]).toHaveTextContent('from 203.0.113.7');
    expect(items[0]).toHaveTextContent(`${ID}.oob.example.com. IN A`);
    expect(items[1]).toHaveTextContent('GET /x HTTP/1.1');
    expect(screen.getByTestId('oob-interactions')).toHaveTextContent('found when the stage ended');
  });

  it('nothing for findings without call-backs', () => {
    renderApp(<OobInteractions interactions={undefined} />, { auth: signedIn(makeUser()) });
    expect(screen.queryByTestId('oob-interactions')).toBeNull();
  });

  it('the scan page lists call-backs that came after the scan ended', async () => {
    const asked: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (req: Request) => {
        const url = new URL(req.url);
        asked.push(`${url.pathname}${url.search}`);
        return Response.json({ data: { count: 1, items: [http] } });
      }),
    );
    const scan = { id: 's1', status: 'done' } as TScan;
    renderApp(<LateInteractionsCard scan={scan} />, { auth: signedIn(makeUser()) });
    const card = await screen.findByTestId('late-interactions');
    expect(card).toHaveTextContent('Call-backs after the scan ended: 1');
    expect(card).toHaveTextContent('GET /x HTTP/1.1');
    expect(asked).toEqual(['/api/main/get_abstract_scan_late_interactions?id=s1']);
  });
});
