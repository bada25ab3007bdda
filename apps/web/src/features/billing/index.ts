// The billing feature's public entry: what other features use of plans and payments.
export { useGetBillingStateQuery } from './api/get-billing-state.ts';
export { OneTimeScanPayment } from './components/one-time-scan-payment.tsx';
export { planName } from './components/plan-text.ts';
