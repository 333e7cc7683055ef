// The API's value types are defined once, in shared/values.ts, below the domains and the request
// pipeline alike (the placement's schemas use them without importing HTTP); the routes import them
// from here as before.
export * from '../values.ts';
