import { api } from '../../../lib/api-client.ts';

/** The app's one RTK Query API with the scans tags added; each operation file injects into it. */
export const scansApi = api.enhanceEndpoints({
  addTagTypes: ['Scans', 'ScanProgress', 'Dashboard', 'ScanReport', 'ScanScope', 'Targets'],
});
