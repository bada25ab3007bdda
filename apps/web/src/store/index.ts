import { combineReducers, configureStore } from '@reduxjs/toolkit';
import { useDispatch, useSelector } from 'react-redux';
import { authSlice } from '../features/auth/auth-slice.ts';
import { menuSlice } from '../layout/menu-slice.ts';
import { api } from '../lib/api-client.ts';

export const rootReducer = combineReducers({
  [api.reducerPath]: api.reducer,
  auth: authSlice.reducer,
  menu: menuSlice.reducer,
});

export type TRootState = ReturnType<typeof rootReducer>;

export function createStore(preloadedState?: Partial<TRootState>) {
  return configureStore({
    reducer: rootReducer,
    preloadedState,
    middleware: (getDefault) =>
      getDefault({ serializableCheck: { ignoredPaths: [api.reducerPath] } }).concat(api.middleware),
  });
}

export type TAppStore = ReturnType<typeof createStore>;
export type TAppDispatch = TAppStore['dispatch'];

export const useAppDispatch = useDispatch.withTypes<TAppDispatch>();
export const useAppSelector = useSelector.withTypes<TRootState>();
