// The out-of-band feature's public entry: what other features may use.
export { LateInteractionsCard, OobInteractions } from './components/oob-interactions.tsx';
