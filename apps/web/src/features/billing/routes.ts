export { AccountPlanPage } from './components/account-plan-page.tsx';
export { CheckoutPage } from './components/checkout-page.tsx';
export { ChoosePlanPage } from './components/choose-plan-page.tsx';
export { PaymentPage } from './components/payment-page.tsx';
export { PostPaymentPage } from './components/post-payment-page.tsx';
