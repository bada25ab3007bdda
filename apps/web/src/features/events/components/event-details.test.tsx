import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { setUpPageTests } from '../../../test/page-setup.ts';
import { cve, leak, page, renderPage, stubApi, uuid, vuln } from '../testing/events-fixtures.tsx';

// A row of each events tab opens its details (through the events page).
setUpPageTests();

describe('event details', () => {
  it('a vulnerability row opens its details: impact, how to resolve, a copyable curl command, references, classification', async () => {
    stubApi(() => page([vuln(1)]));
    const user = userEvent.setup();
    renderPage('/events/vulnerabilities');
    await user.click(await screen.findByTestId(`event-${uuid(1)}`));
    const dialog = await screen.findByRole('dialog', { name: 'Exposed .git/config 1' });
    const section = (name: string) => within(dialog).getByRole('region', { name });
    expect(section('Impact')).toHaveTextContent('Source code and credentials can be downloaded.');
    expect(section('How to resolve')).toHaveTextContent('Deny access to /.git in the web server.');
    const reproduce = section('How to reproduce');
    expect(within(reproduce).getByLabelText('curl command')).toHaveTextContent(
      "curl -sk 'https://www.lab.test/.git/config'",
    );
    expect(within(reproduce).getByLabelText('Request')).toHaveTextContent('GET /.git/config HTTP/1.1');
    expect(within(reproduce).getByLabelText('Response (evidence)')).toHaveTextContent('[core]');
    await user.click(within(reproduce).getByRole('button', { name: 'Copy curl command' }));
    await expect(navigator.clipboard.readText()).resolves.toBe("curl -sk 'https://www.lab.test/.git/config'");
    const refs = section('Web references');
    expect(within(refs).getByRole('link', { name: 'https://owasp.org/git' })).toHaveAttribute(
      'rel',
      'noopener noreferrer',
    );
    // Not a web link: shown as text, never as a link.
    expect(within(refs).queryByRole('link', { name: 'javascript:alert(1)' })).toBeNull();
    expect(within(refs).getByText('javascript:alert(1)')).toBeInTheDocument();
    const classification = section('Classification');
    expect(classification).toHaveTextContent('Classification severity');
    expect(within(classification).getByTestId('severity-high')).toHaveTextContent('High');
    expect(classification).toHaveTextContent('CWECWE-200');
    expect(classification).toHaveTextContent('CVSS score7.5');
  });

  it('on a plan without details (Trial) the page and the dialog say the details are hidden', async () => {
    const hidden = vuln(1, {
      description: null,
      impact: null,
      remediation: null,
      references: [],
      classification: null,
      evidence: null,
    });
    stubApi(() =>
      Response.json({ data: { items: [hidden], total: 1, total_exact: true, details_hidden: true } }),
    );
    const user = userEvent.setup();
    renderPage('/events/vulnerabilities');
    expect(await screen.findByTestId('details-hidden')).toHaveTextContent(
      /Trial scan plan shows what was found/,
    );
    await user.click(await screen.findByTestId(`event-${uuid(1)}`));
    const dialog = await screen.findByRole('dialog', { name: 'Exposed .git/config 1' });
    expect(within(dialog).getByTestId('details-hidden')).toBeInTheDocument();
    expect(within(dialog).queryByRole('region', { name: 'How to reproduce' })).toBeNull();
    expect(within(dialog).queryByRole('region', { name: 'Impact' })).toBeNull();
    expect(within(dialog).getByRole('link', { name: 'Choose a plan' })).toHaveAttribute(
      'href',
      '/choose-plan',
    );
  });

  it('a CVE row shows its technology info', async () => {
    stubApi(() => page([cve(1)]));
    const user = userEvent.setup();
    renderPage('/events/cve');
    await user.click(await screen.findByRole('button', { name: 'Apache httpd' }));
    const dialog = await screen.findByRole('dialog', { name: 'Apache httpd · 2.4.49 · CVE-2021-41771' });
    const info = within(dialog).getByRole('region', { name: 'Technology info' });
    // The bounds say whether they are affected themselves (2.4.49 is, 2.4.50 is not).
    expect(info).toHaveTextContent('Affected versions (start – end)≥ 2.4.49, < 2.4.50');
    expect(info).toHaveTextContent('Latest version2.4.62');
    expect(info).toHaveTextContent('Downloads per month12,345');
    expect(within(info).getByRole('link', { name: 'https://httpd.apache.org/' })).toHaveAttribute(
      'href',
      'https://httpd.apache.org/',
    );
    expect(within(info).getByRole('link', { name: 'https://github.com/apache/httpd' })).toBeInTheDocument();
    expect(within(dialog).getByRole('region', { name: 'Classification' })).toHaveTextContent('CVSS score9.8');
  });

  it('a leak row shows the masked password, its sources and date; a clear password is masked here', async () => {
    stubApi(() => page([leak(1), leak(2, 'hunter2secret')]));
    const user = userEvent.setup();
    renderPage('/events/leaks');
    expect(await screen.findByText('user1@lab.test')).toBeInTheDocument();
    expect(screen.queryByText('hunter2secret')).toBeNull();
    expect(screen.getByText('hu*********et')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'user1@lab.test' }));
    const dialog = await screen.findByRole('dialog', { name: 'user1@lab.test' });
    const info = within(dialog).getByRole('region', { name: 'Leak info' });
    expect(within(info).getByTestId('leak-password')).toHaveTextContent('hu******23');
    expect(info).toHaveTextContent('Leak sourcesCollection #1, lab-breach');
    expect(info).toHaveTextContent('Leak dateApr 1, 2023');
    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await user.click(screen.getByRole('button', { name: 'user2@lab.test' }));
    const second = await screen.findByRole('dialog', { name: 'user2@lab.test' });
    expect(within(second).getByTestId('leak-password')).toHaveTextContent('hu*********et');
    expect(second).not.toHaveTextContent('hunter2secret');
  });
});
