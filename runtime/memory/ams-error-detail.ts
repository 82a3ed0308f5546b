import type { MiddlewareHandler } from 'hono';
import { isPlainObject } from '../core/json.js';

/**
 * Adds FastAPI's `detail` (the same text as `message`) to every JSON error
 * answer `{code, message}`, because the official AMS clients read the reason
 * of a failure from `detail` only. The error mapping itself stays
 * `errorResponse`'s.
 *
 * @example
 * app.use(amsErrorDetail()); // 404 {"code":"not_found","message":"Session s1 not found","detail":"Session s1 not found"}
 */
export function amsErrorDetail(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const { res } = c;
    if (res.status < 400 || !res.headers.get('content-type')?.startsWith('application/json')) return;
    const body: unknown = await res
      .clone()
      .json()
      .catch(() => undefined);
    if (!isPlainObject(body) || typeof body.message !== 'string' || 'detail' in body) return;
    c.res = new Response(JSON.stringify({ ...body, detail: body.message }), { status: res.status, headers: res.headers });
  };
}
