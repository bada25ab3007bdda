export * from './auth.ts';
export * from './common.ts';
export * from './events.ts';
export * from './menu.ts';
export * from './plans.ts';
export * from './scans.ts';
export * from './system.ts';
export * from './targets.ts';
