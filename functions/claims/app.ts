import { createFunctionApp } from '../../shared/http/app.ts';
import { createRoutes } from '../../shared/http/routes.ts';
import { bookingRoutes } from './routes/booking.ts';
import { documentRoutes } from './routes/documents.ts';
import { placementRoutes } from './routes/placement.ts';
import { requestRoutes } from './routes/requests.ts';
import { sourcingRoutes } from './routes/sourcing.ts';
import { timelineRoutes } from './routes/timeline.ts';

// The carrier side's housing requests. Each module declares its routes; /batch is mounted with the
// requests before any /{reference} path can claim it.
export const routes = createRoutes()
  .route('/', requestRoutes)
  .route('/', sourcingRoutes)
  .route('/', documentRoutes)
  .route('/', timelineRoutes)
  .route('/', placementRoutes)
  .route('/', bookingRoutes);

export const app = createFunctionApp('claims', routes);

/** The group's table of errors, for the tests that hold its routes to it. */
export { errors } from './errors.ts';
