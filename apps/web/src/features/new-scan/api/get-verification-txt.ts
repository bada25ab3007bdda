import type { TTargetRef, TVerificationTxt } from '@perimeter/contracts';
import { newScanApi } from './new-scan-api.ts';

/** POST /main/user_target/get_verification_txt: what to publish to prove ownership. */
export const getVerificationTxtApi = newScanApi.injectEndpoints({
  endpoints: (b) => ({
    getVerificationTxt: b.query<TVerificationTxt, TTargetRef>({
      query: (body) => ({ url: '/main/user_target/get_verification_txt', method: 'POST', body }),
    }),
  }),
});

export const { useGetVerificationTxtQuery } = getVerificationTxtApi;
