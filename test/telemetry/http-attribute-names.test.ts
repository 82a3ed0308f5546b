/**
 * The server spans spell their HTTP attribute names themselves (importing
 * `@opentelemetry/semantic-conventions` at start costs every service idle
 * memory); they must stay the package's names, and the module that starts a
 * server must not load the package.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import * as conventions from '@opentelemetry/semantic-conventions';
import { describe, expect, it } from 'vitest';
import * as spelled from '../../runtime/core/telemetry/http-attribute-names.js';

describe('http-attribute-names', () => {
  it('every name is the semantic conventions package’s constant of the same name', () => {
    const names = Object.entries(spelled);
    expect(names.map(([name]) => name).sort()).toEqual([
      'ATTR_HTTP_REQUEST_METHOD',
      'ATTR_HTTP_RESPONSE_STATUS_CODE',
      'ATTR_HTTP_ROUTE',
      'ATTR_SERVER_PORT',
      'ATTR_URL_PATH',
    ]);
    for (const [name, value] of names) expect(value, name).toBe((conventions as Record<string, unknown>)[name]);
  });

  it('loading the server spans (compiled) does not load the semantic conventions package', async () => {
    // Run `npm run build` first: the child loads the compiled module as a service does, printing every module it resolves.
    const compiled = fileURLToPath(new URL('../../dist/runtime/core/telemetry/http-server-spans.js', import.meta.url));
    const hook = 'export async function resolve(s, c, next) { const r = await next(s, c); process.stdout.write(r.url + "\\n"); return r; }';
    const script = `import { register } from 'node:module'; register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)})); await import(${JSON.stringify(compiled)});`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { timeout: 30_000 });
    const resolved = stdout.split('\n').filter(Boolean);
    expect(resolved.some((url) => url.includes('/http-attribute-names.js'))).toBe(true);
    expect(resolved.filter((url) => url.includes('semantic-conventions'))).toEqual([]);
  }, 60_000);
});
