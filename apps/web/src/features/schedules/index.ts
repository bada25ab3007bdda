// The schedules feature's public entry: how other features link to the schedule form.
export { schedulePath } from './schedule-path.ts';
