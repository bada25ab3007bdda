import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

/**
 * Menu state of spec §3 that the shell uses: the open item and the drawer. The menu itself is a
 * query of the API client (features/system/api/get-dashboard-menu.ts).
 */
export type TMenuState = {
  openItem: string | null;
  drawerOpen: boolean;
};

export const initialMenuState: TMenuState = {
  openItem: 'dashboard',
  drawerOpen: false,
};

export const menuSlice = createSlice({
  name: 'menu',
  initialState: initialMenuState,
  reducers: {
    activeItem: (state, action: PayloadAction<string | null>) => {
      state.openItem = action.payload;
    },
    openDrawer: (state, action: PayloadAction<boolean>) => {
      state.drawerOpen = action.payload;
    },
  },
});

export const menuActions = menuSlice.actions;
