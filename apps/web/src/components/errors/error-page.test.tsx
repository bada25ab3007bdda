import { screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/render.tsx';
import { ErrorPage } from './error-page.tsx';

function Boom(): never {
  throw new Error('Kaboom');
}

function renderRouter(loaderThrows: 'response' | 'error') {
  const router = createMemoryRouter([
    {
      path: '/',
      errorElement: <ErrorPage />,
      loader: () => {
        if (loaderThrows === 'response') throw new Response('', { status: 418, statusText: "I'm a teapot" });
        return null;
      },
      element: <Boom />,
    },
  ]);
  return renderApp(<RouterProvider router={router} />, { withRouter: false });
}

describe('unexpected-error page', () => {
  it('shows status and status text of an error response', async () => {
    const original = console.error;
    console.error = () => {};
    try {
      renderRouter('response');
      expect(await screen.findByTestId('error-status')).toHaveTextContent('418');
      expect(screen.getByTestId('error-text')).toHaveTextContent("I'm a teapot");
    } finally {
      console.error = original;
    }
  });

  it('shows the message of a thrown error', async () => {
    const original = console.error;
    console.error = () => {};
    try {
      renderRouter('error');
      expect(await screen.findByTestId('error-text')).toHaveTextContent('Kaboom');
      expect(screen.queryByTestId('error-status')).not.toBeInTheDocument();
    } finally {
      console.error = original;
    }
  });
});
