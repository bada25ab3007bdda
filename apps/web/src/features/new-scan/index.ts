// The new-scan feature's public entry: what the targets feature uses of it.
export { useCreateScanMutation } from './api/create-scan.ts';
export { useGetVerificationTxtQuery } from './api/get-verification-txt.ts';
export { CopyField } from './components/copy-field.tsx';
