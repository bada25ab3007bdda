import { describe, expect, it } from 'vitest';
import { scanFinishedMail } from './notifications-templates.ts';

const facts = {
  name: 'Ada',
  targets: 'acme.test',
  link: 'http://perimeter.test/scans/past-scans/1',
  counts: { high: 1 },
  newCriticalHigh: [],
};

describe('scan finished mail', () => {
  it('says a partial scan is partial, and what was skipped and why (en and ru)', () => {
    const partial = {
      stages: [
        {
          stage: 'templates',
          status: 'stalled',
          reason: 'no progress for 120000 ms',
          planned: 130,
          ran: 120,
          skipped: [{ reason: 'check failed: dns timeout', count: 10, examples: [] }],
        },
      ],
    };
    const en = scanFinishedMail('en', { ...facts, partial });
    expect(en.subject).toBe('Scan of acme.test finished (partial)');
    expect(en.text).toContain('The scan is partial: not everything planned ran.');
    expect(en.text).toContain(
      '• templates: no progress for 120000 ms, ran 120 of 130 — check failed: dns timeout (10)',
    );
    const ru = scanFinishedMail('ru', { ...facts, partial });
    expect(ru.subject).toBe('Сканирование acme.test завершено (частично)');
    expect(ru.text).toContain('выполнено 120 из 130');
    const whole = scanFinishedMail('en', { ...facts, partial: null });
    expect(whole.subject).toBe('Scan of acme.test finished');
    expect(whole.text).not.toContain('partial');
  });
});
