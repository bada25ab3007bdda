// The billing feature's public entry for other features (more moves here from the boundaries baseline).
export { planName } from './components/plan-text.ts';
