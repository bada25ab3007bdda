/** What other features use of targets: the one query of the user's targets. */
export { useGetTargetsQuery } from './api/get-targets.ts';
