import { api } from '../../../lib/api-client.ts';

/** The app's one RTK Query API with the tags the new-scan flow reads and changes. */
export const newScanApi = api.enhanceEndpoints({ addTagTypes: ['Targets', 'Scans', 'Dashboard', 'Billing'] });
