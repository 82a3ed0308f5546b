/**
 * The HTTP semantic conventions' attribute names the server spans use,
 * spelled here rather than imported from `@opentelemetry/semantic-conventions`:
 * that package's entry point loads every convention (hundreds of constants),
 * which every service would pay for in idle memory at start. A test holds
 * them equal to the package's constants.
 */

/** `http.request.method`: GET, POST… */
export const ATTR_HTTP_REQUEST_METHOD = 'http.request.method';
/** `http.response.status_code`. */
export const ATTR_HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';
/** `http.route`: the matched route template (`/tasks/:id`). */
export const ATTR_HTTP_ROUTE = 'http.route';
/** `server.port`: the port the request came in on. */
export const ATTR_SERVER_PORT = 'server.port';
/** `url.path`: the request's path, without its query. */
export const ATTR_URL_PATH = 'url.path';
