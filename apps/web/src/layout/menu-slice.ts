import type { TMenuItem } from '@perimeter/contracts';
import { createAsyncThunk, createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { fetchDashboardMenu } from '../features/system/api/get-dashboard-menu.ts';

/**
 * Menu state of spec §3 that the shell uses: the open item, the drawer, the menu and its error.
 * (The admin template's selected id and component drawer had no screen here and are gone.)
 */
export type TMenuState = {
  openItem: string[];
  drawerOpen: boolean;
  menu: TMenuItem | null;
  error: string | null;
};

export const initialMenuState: TMenuState = {
  openItem: ['dashboard'],
  drawerOpen: false,
  menu: null,
  error: null,
};

export const loadMenu = createAsyncThunk<TMenuItem, void, { rejectValue: string }>(
  'menu/load',
  async (_arg, { rejectWithValue }) => {
    try {
      return (await fetchDashboardMenu()).dashboard;
    } catch (e) {
      return rejectWithValue(typeof e === 'string' ? e : e instanceof Error ? e.message : 'Wrong Services');
    }
  },
);

export const menuSlice = createSlice({
  name: 'menu',
  initialState: initialMenuState,
  reducers: {
    activeItem: (state, action: PayloadAction<string[]>) => {
      state.openItem = action.payload;
    },
    openDrawer: (state, action: PayloadAction<boolean>) => {
      state.drawerOpen = action.payload;
    },
  },
  extraReducers: (builder) => {
    builder
      .addCase(loadMenu.fulfilled, (state, action) => {
        state.menu = action.payload;
        state.error = null;
      })
      .addCase(loadMenu.rejected, (state, action) => {
        state.error = action.payload ?? action.error.message ?? 'Wrong Services';
      });
  },
});

export const menuActions = menuSlice.actions;
