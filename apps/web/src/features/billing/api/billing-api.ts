import { api } from '../../../lib/api-client.ts';

/** The app's one RTK Query API with the billing tag added; each operation file injects into it. */
export const billingApi = api.enhanceEndpoints({ addTagTypes: ['Billing'] });
