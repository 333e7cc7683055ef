import { createFunctionApp } from '../../shared/http/app.ts';
import { createRoutes } from '../../shared/http/routes.ts';
import { accountRoutes } from './routes/account.ts';
import { availabilityRoutes } from './routes/availability.ts';
import { calendarRoutes } from './routes/calendar.ts';
import { homeRoutes } from './routes/homes.ts';
import { refundRoutes } from './routes/refunds.ts';
import { applicationRoutes } from './routes/applications.ts';

// The provider side. Fixed paths (/bookings, /payouts, /availability, /batch, /readiness, /applications) are
// mounted before the routes on /{ref} so that they win.
export const routes = createRoutes().route('/', accountRoutes).route('/', availabilityRoutes).route('/', refundRoutes).route('/', applicationRoutes)
  .route('/', calendarRoutes).route('/', homeRoutes);

export const app = createFunctionApp('properties', routes);

/** The group's table of errors, for the tests that hold its routes to it. */
export { errors } from './errors.ts';
