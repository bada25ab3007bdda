import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { changeLanguage, i18n } from '../../../lib/i18n.ts';
import { makeUser, renderApp, signedIn } from '../../../test/render.tsx';
import { anchorOf, FAQ_GROUPS, matchesQuery } from './faq-data.ts';
import { FaqPage } from './faq-page.tsx';

afterEach(async () => {
  if (i18n.language !== 'en') await changeLanguage('en');
});

const auth = signedIn(makeUser());
const questions = () => screen.getAllByRole('heading', { level: 3 }).map((h) => h.textContent ?? '');

describe('FAQ page', () => {
  it('renders every group and answer in English, with real answers', async () => {
    const u = userEvent.setup({ delay: null });
    renderApp(<FaqPage />, { route: '/faq', auth });
    expect(screen.getByRole('heading', { level: 1, name: 'Frequently asked questions' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 2, name: 'Verifying ownership' })).toBeInTheDocument();
    expect(questions()).toHaveLength(FAQ_GROUPS.flatMap((g) => g.items).length);
    await u.click(screen.getByRole('button', { name: 'How do I verify a domain?' }));
    const answer = screen.getByRole('region', { name: 'How do I verify a domain?' });
    expect(answer).toHaveTextContent('_perimeter.example.com');
    expect(within(answer).getByText('perimeter-verification=<token>').tagName).toBe('CODE');
    expect(within(answer).getByRole('link', { name: 'Link to this answer' })).toHaveAttribute(
      'href',
      '#verify-domain',
    );
  }, 60_000);

  it('renders in Russian', async () => {
    await changeLanguage('ru');
    const u = userEvent.setup({ delay: null });
    renderApp(<FaqPage />, { route: '/faq', auth });
    expect(screen.getByRole('heading', { level: 1, name: 'Частые вопросы' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 2, name: 'Подтверждение владения' })).toBeInTheDocument();
    await u.click(screen.getByRole('button', { name: 'Какое окно сканирования используется по умолчанию?' }));
    expect(
      screen.getByRole('region', { name: 'Какое окно сканирования используется по умолчанию?' }),
    ).toHaveTextContent('С 02:00 до 06:00 по местному времени в ночь с пятницы на субботу');
    // No English question is left untranslated.
    expect(questions().some((q) => /^[A-Za-z ?,'’()-]+$/.test(q))).toBe(false);
  }, 60_000);

  it('search filters questions and answers, says how many match, and hides empty groups', async () => {
    const u = userEvent.setup({ delay: null });
    renderApp(<FaqPage />, { route: '/faq', auth });
    const search = screen.getByRole('searchbox', { name: 'Search the FAQ' });
    // "reverse" only occurs in the network verification answer.
    await u.click(search);
    await u.paste('reverse zone');
    expect(questions()).toEqual(['How do I verify a network?']);
    expect(screen.getByTestId('faq-count')).toHaveTextContent('Answers found: 1');
    expect(screen.queryByRole('heading', { level: 2, name: 'Plans' })).toBeNull();

    await u.clear(search);
    await u.paste('argon2id');
    expect(questions()).toEqual(['How is my account protected?']);

    await u.clear(search);
    await u.paste('zzzz nothing');
    expect(screen.queryAllByRole('heading', { level: 3 })).toHaveLength(0);
    expect(screen.getByTestId('faq-count')).toHaveTextContent('No answer matches “zzzz nothing”');

    await u.click(screen.getByRole('button', { name: 'Clear the search' }));
    expect(questions()).toHaveLength(FAQ_GROUPS.flatMap((g) => g.items).length);
  }, 60_000);

  it('searches in Russian too', async () => {
    await changeLanguage('ru');
    const u = userEvent.setup({ delay: null });
    renderApp(<FaqPage />, { route: '/faq', auth });
    await u.click(screen.getByRole('searchbox', { name: 'Поиск по вопросам' }));
    await u.paste('пароли');
    expect(questions()).toContain('Как обрабатываются утёкшие пароли?');
    expect(questions()).not.toContain('Как подтвердить домен?');
  }, 60_000);

  it('opens the answer a deep link points at', () => {
    renderApp(<FaqPage />, { route: '/faq#trial-report', auth });
    expect(screen.getByRole('region', { name: 'Why is part of my report hidden?' })).toBeVisible();
    expect(screen.getByRole('button', { name: 'Why is part of my report hidden?' })).toHaveAttribute(
      'aria-expanded',
      'true',
    );
    expect(screen.getByRole('button', { name: 'How do I verify a domain?' })).toHaveAttribute(
      'aria-expanded',
      'false',
    );
  }, 60_000);
});

describe('FAQ helpers', () => {
  it('anchors and matching', () => {
    expect(anchorOf('classExploitDb')).toBe('class-exploit-db');
    expect(matchesQuery('How do I verify a `network`?', 'NETWORK verify')).toBe(true);
    expect(matchesQuery('How do I verify a network?', 'network peer')).toBe(false);
    expect(matchesQuery('Утёкшие пароли', 'утекшие')).toBe(true);
  });
});
