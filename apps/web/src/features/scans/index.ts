// The scans feature's public entry for other features (more moves here from the boundaries baseline).
export { SeverityCountChips } from './components/severity-count-chips.tsx';
