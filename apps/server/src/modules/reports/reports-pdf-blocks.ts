import { SEVERITIES, type TReport } from '@perimeter/contracts';
import type { Content } from 'pdfmake/interfaces';
import { SEVERITY_COLORS } from './reports-fns.ts';
import type { ReportTexts } from './reports-texts.ts';

/* The PDF's boxes and tables that stand alone: severity chart, trial and partial-scan notices, plain tables. */

export function severityChart(report: TReport, t: ReportTexts): Content {
  const counts = report.summary.severity_counts;
  const max = Math.max(1, ...SEVERITIES.map((s) => counts[s]));
  const barMax = 300;
  const rowH = 22;
  const canvas = SEVERITIES.flatMap((s, i) => [
    { type: 'rect' as const, x: 0, y: i * rowH, w: barMax, h: 14, color: '#eeeeee' },
    {
      type: 'rect' as const,
      x: 0,
      y: i * rowH,
      w: Math.max(counts[s] > 0 ? 2 : 0, (counts[s] / max) * barMax),
      h: 14,
      color: SEVERITY_COLORS[s],
    },
  ]);
  return {
    columns: [
      {
        width: 110,
        stack: SEVERITIES.map((s) => ({
          text: t.severity[s],
          fontSize: 10,
          margin: [0, 1, 0, 9] as [number, number, number, number],
        })),
      },
      { width: barMax + 10, canvas },
      {
        width: '*',
        stack: SEVERITIES.map((s) => ({
          text: String(counts[s]),
          bold: true,
          fontSize: 10,
          margin: [0, 1, 0, 9] as [number, number, number, number],
        })),
      },
    ],
    margin: [0, 8, 0, 12],
  };
}

export function restrictedBox(report: TReport, t: ReportTexts): Content[] {
  if (!report.restricted) return [];
  return [
    {
      table: {
        widths: ['*'],
        body: [
          [
            {
              stack: [
                { text: t.hiddenTitle, bold: true, fontSize: 12, margin: [0, 0, 0, 4] },
                { text: report.restricted.message, fontSize: 10 },
              ],
              fillColor: '#fff3e0',
              margin: [8, 8, 8, 8],
            },
          ],
        ],
      },
      layout: 'noBorders',
      margin: [0, 0, 0, 12],
    },
  ];
}

export function simpleTable(headers: string[], rows: string[][], widths: Array<string | number>): Content {
  return {
    table: {
      headerRows: 1,
      widths,
      body: [
        headers.map((h) => ({ text: h, bold: true, fontSize: 8, fillColor: '#eceff1' })),
        ...rows.map((r) => r.map((c) => ({ text: c, fontSize: 7.5 }))),
      ],
    },
    layout: 'lightHorizontalLines',
    margin: [0, 4, 0, 10],
  };
}

/** Honest completion: a partial scan says so first, with what each cut stage skipped and why. */
export function partialBox(report: TReport, t: ReportTexts): Content[] {
  const partial = report.scan.partial;
  if (!partial) return [];
  const lines: Content[] = [];
  for (const s of partial.stages) {
    lines.push({
      text: `${t.partialStage(s.stage, s.status, s.ran, s.planned)}${s.reason ? ` (${s.reason})` : ''}`,
      bold: true,
      fontSize: 9,
      margin: [0, 4, 0, 0],
    });
    for (const k of s.skipped)
      lines.push({
        text: t.partialSkipped(k.count, k.reason, k.examples),
        fontSize: 8,
        margin: [8, 1, 0, 0],
      });
  }
  return [
    {
      table: {
        widths: ['*'],
        body: [
          [
            {
              stack: [
                { text: t.partialTitle, bold: true, fontSize: 12, margin: [0, 0, 0, 4] },
                { text: t.partialBody, fontSize: 9 },
                ...lines,
              ],
              fillColor: '#fff3e0',
              margin: [8, 8, 8, 8],
            },
          ],
        ],
      },
      layout: 'noBorders',
      margin: [0, 0, 0, 12],
    },
  ];
}
