// One file per area; drizzle-kit reads them all through this index.
export * from './identity.ts';
