// Text put into HTML (the service's pages and the emails the domains send) is escaped by this one
// function, defined below the domains and the request pipeline so both use it.

export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
