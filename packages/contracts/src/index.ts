export * from './auth.ts';
export * from './common.ts';
export * from './plans.ts';
export * from './system.ts';
export * from './menu.ts';
