// The scans feature's public entry: what other features use of scans.
export { useGetScansStatsQuery } from './api/get-scans-stats.ts';
export { useStartScanMutation } from './api/start-scan.ts';
export { ScanStatusChip } from './components/scan-status-chip.tsx';
export { SeverityCountChips } from './components/severity-count-chips.tsx';
