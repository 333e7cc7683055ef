import type { PayActions } from './app.ts';

// The page's data and payment: filled by the placement payment module.
export const payActions: PayActions = {
  view: () => Promise.resolve(null),
  pay: () => Promise.reject(new Error('payments are not wired yet')),
};
