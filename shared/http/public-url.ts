// The service's public address is defined once, in shared/public-url.ts, where the domains that hand
// out links read it without importing HTTP; the request pipeline imports it from here as before.
export * from '../public-url.ts';
