/**
 * The serializer of responses built field by field from known columns (the events pages:
 * `toEvent`, `technologyEvent`): the JSON as built. Every other route's response goes through
 * zod's encode (app.ts), which validates it and strips what its schema lacks by copying the whole
 * response; for an events page that copy was the largest allocation of the request (~60–80 kB of
 * 370) and 20–45 µs of CPU. What the encode guarded is a test instead: test/events-contract.test.ts
 * requires every events case's page to come back from the schema's encode unchanged (no field the
 * schema lacks, every value of its type), so drift fails CI rather than being stripped at run time.
 */
export const jsonAsBuilt = () => (data: unknown) => JSON.stringify(data);
