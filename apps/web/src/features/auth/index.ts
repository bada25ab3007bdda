// The auth feature's public entry for other features (more moves here from the boundaries baseline).
export { useDateFormat } from './use-date-format.ts';
