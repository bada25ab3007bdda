import type { TReportFinding } from '@perimeter/contracts';
import type { Content } from 'pdfmake/interfaces';
import type { ReportTexts } from './reports-texts.ts';

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/**
 * The call-backs that proved an out-of-band finding (docs/oob.md): protocol, source address, time
 * and the start of the raw request, each in a grey box; nothing for other findings.
 */
export function oobInteractionsBlock(
  repro: NonNullable<TReportFinding['how_to_reproduce']>,
  t: ReportTexts,
): Content[] {
  const list = repro.interactions ?? [];
  if (!list.length) return [];
  return [
    { text: t.oobInteractions, bold: true, fontSize: 9, margin: [0, 4, 0, 1] },
    ...(repro.late ? [{ text: t.oobLate, fontSize: 8, italics: true } as Content] : []),
    {
      table: {
        widths: ['*'],
        body: list.map((i) => [
          {
            stack: [
              {
                text: `${i.protocol.toUpperCase()}${i.q_type ? ` ${i.q_type}` : ''} · ${i.remote_address} · ${i.at}`,
                bold: true,
                fontSize: 7.5,
              },
              { text: clip(i.raw_request, 500), fontSize: 7 },
            ],
            fillColor: '#f5f5f5',
            margin: [4, 3, 4, 3],
          },
        ]),
      },
      layout: 'noBorders',
    } as Content,
  ];
}
