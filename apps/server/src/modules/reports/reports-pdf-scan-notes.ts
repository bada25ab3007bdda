import { PLAN_KEYS, PLAN_NAMES, type TMessageParams, type TReport } from '@perimeter/contracts';
import type { Content } from 'pdfmake/interfaces';
import type { ReportTexts } from './reports-texts.ts';

/** Parameters as text; a `plan` (a key, or the English name of rows written before keys) translated. */
function textParams(p: TMessageParams | undefined, t: ReportTexts): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(p ?? {})) out[k] = String(v);
  const plan = PLAN_KEYS.find((k) => k === p?.plan || PLAN_NAMES[k] === p?.plan);
  if (plan) out.plan = t.planName[plan] ?? out.plan ?? plan;
  return out;
}

/** The scan's message in the report's language; the English text where it has no code. */
export function scanMessageText(scan: TReport['scan'], t: ReportTexts): string | null {
  if (scan.message_code) return t.scanMessage[scan.message_code](textParams(scan.message_params, t));
  return scan.message;
}

/** The scan's message, then every host it found but did not scan, with the reason in the report's language. */
export function scanNotes(report: TReport, t: ReportTexts): Content[] {
  const out: Content[] = [];
  const message = scanMessageText(report.scan, t);
  if (message)
    out.push({
      text: [{ text: `${t.scanMessageTitle}: `, bold: true }, message],
      fontSize: 10,
      color: '#e65100',
      margin: [0, 4, 0, 0],
    });
  const skipped = report.scan.skipped_hosts;
  if (skipped.length > 0)
    out.push(
      { text: t.skippedHostsTitle(skipped.length), bold: true, fontSize: 11, margin: [0, 10, 0, 2] },
      {
        table: {
          headerRows: 1,
          widths: [160, '*'],
          body: [
            [t.host, t.reason].map((h) => ({ text: h, bold: true, fontSize: 8, fillColor: '#eceff1' })),
            ...skipped.map((h) => [
              { text: h.host, fontSize: 7.5 },
              {
                text: h.code ? t.skippedReason[h.code](textParams(h.params, t)) : h.reason,
                fontSize: 7.5,
              },
            ]),
          ],
        },
        layout: 'lightHorizontalLines',
        margin: [0, 2, 0, 10],
      },
    );
  return out;
}
