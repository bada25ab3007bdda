import { useState } from 'react';
import { RouterProvider } from 'react-router';
import { createStore } from '../store/index.ts';
import { AppProviders } from './providers.tsx';
import { createAppRouter } from './router.tsx';

export function App() {
  const [store] = useState(createStore);
  const [router] = useState(createAppRouter);
  return (
    <AppProviders store={store}>
      <RouterProvider router={router} />
    </AppProviders>
  );
}
