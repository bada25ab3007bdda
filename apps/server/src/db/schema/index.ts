// One file per area; drizzle-kit reads them all through this index.

export * from './billing.ts';
export * from './findings.ts';
export * from './identity.ts';
export * from './intel.ts';
export * from './notifications.ts';
export * from './oob.ts';
export * from './reports.ts';
export * from './scans.ts';
export * from './schedules.ts';
export * from './targets.ts';
