import type { TOk, TResendEmailBody } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const resendEmailApi = api.injectEndpoints({
  endpoints: (b) => ({
    resendEmail: b.mutation<TOk, TResendEmailBody>({
      query: (body) => ({ url: '/users/auth/registration/resend-email/', method: 'POST', body }),
    }),
  }),
});

export const { useResendEmailMutation } = resendEmailApi;
