import type { TTargetRef, TVerificationTxt } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

/** POST /main/user_target/get_verification_txt: what to publish to prove ownership. */
export const getVerificationTxtApi = api.injectEndpoints({
  endpoints: (b) => ({
    getVerificationTxt: b.query<TVerificationTxt, TTargetRef>({
      query: (body) => ({ url: '/main/user_target/get_verification_txt', method: 'POST', body }),
    }),
  }),
});

export const { useGetVerificationTxtQuery } = getVerificationTxtApi;
