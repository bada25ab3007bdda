import type { TUser } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const agreementConfirmApi = api.injectEndpoints({
  endpoints: (b) => ({
    confirmAgreement: b.mutation<TUser, void>({
      query: () => ({ url: '/users/agreement_confirm', method: 'POST', body: { accepted: true } }),
    }),
  }),
});

export const { useConfirmAgreementMutation } = agreementConfirmApi;
