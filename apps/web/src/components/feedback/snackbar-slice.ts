import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

export type TAlertColor = 'primary' | 'secondary' | 'success' | 'error' | 'warning' | 'info';
export type TSnackbarVariant = 'default' | 'alert';
export type TTransition = 'Fade' | 'Grow' | 'SlideLeft' | 'SlideUp' | 'SlideRight' | 'SlideDown';

/** Notification state of spec §3 with the defaults of spec §4. */
export type TSnackbarState = {
  action: boolean;
  open: boolean;
  message: string;
  anchorOrigin: { vertical: 'top' | 'bottom'; horizontal: 'left' | 'center' | 'right' };
  variant: TSnackbarVariant;
  alert: { color: TAlertColor; variant: 'filled' | 'outlined' | 'standard' };
  transition: TTransition;
  close: boolean;
  actionButton: boolean;
  maxStack: number;
  dense: boolean;
  iconVariant: 'usedefault' | 'useemoji' | 'hide';
};

export const initialSnackbarState: TSnackbarState = {
  action: false,
  open: false,
  message: 'Note archived',
  anchorOrigin: { vertical: 'top', horizontal: 'center' },
  variant: 'alert',
  alert: { color: 'primary', variant: 'filled' },
  transition: 'Fade',
  close: true,
  actionButton: false,
  maxStack: 10,
  dense: false,
  iconVariant: 'usedefault',
};

export type TOpenSnackbar = Partial<Omit<TSnackbarState, 'open' | 'action'>> & { message: string };

export const snackbarSlice = createSlice({
  name: 'snackbar',
  initialState: initialSnackbarState,
  reducers: {
    openSnackbar: (state, action: PayloadAction<TOpenSnackbar>) => ({
      ...initialSnackbarState,
      maxStack: state.maxStack,
      dense: state.dense,
      iconVariant: state.iconVariant,
      ...action.payload,
      action: !state.action,
      open: true,
    }),
    closeSnackbar: (state) => {
      state.open = false;
    },
    setStackOptions: (
      state,
      action: PayloadAction<Partial<Pick<TSnackbarState, 'maxStack' | 'dense' | 'iconVariant'>>>,
    ) => ({ ...state, ...action.payload }),
  },
});

export const { openSnackbar, closeSnackbar, setStackOptions } = snackbarSlice.actions;
