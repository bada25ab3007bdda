// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { PRIVACY_POLICY, renderPrivacyPolicyPdf } from './privacy-policy.ts';

describe('privacy policy PDF', () => {
  it('renders a real PDF document', async () => {
    const pdf = await renderPrivacyPolicyPdf();
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.length).toBeGreaterThan(5_000);
    expect(pdf.subarray(-6).toString('latin1')).toContain('%%EOF');
  });

  it('covers what a privacy policy must say', () => {
    const headings = PRIVACY_POLICY.sections.map(([h]) => h);
    for (const h of ['What we collect', 'Cookies and local storage', 'Retention', 'Your rights']) {
      expect(headings).toContain(h);
    }
    expect(JSON.stringify(PRIVACY_POLICY)).toContain('cookieConsent');
  });
});
