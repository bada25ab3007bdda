// The vulnerability-intel feature's public entry: what the events and scans features show of it.
export { CveIntelDetails } from './components/cve-intel-details.tsx';
export { formatEpss, IntelDatabaseNotice, KevChip, ReportNotices } from './components/intel-notices.tsx';
