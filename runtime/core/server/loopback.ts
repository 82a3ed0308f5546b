import { ConfigError } from '../errors/config-error.js';

/** True for addresses only this machine can reach (`localhost`, `127.x.y.z`, `::1`). Anything else, `0.0.0.0` and `::` included, is beyond loopback. */
export function isLoopback(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/**
 * Refuses to listen beyond loopback unless the operator said so: a service
 * that decides what agents may do must not be reachable by others by
 * accident. Throws `ConfigError` (code `invalid_config`) naming the option
 * that allows it.
 *
 * @example
 * checkLoopbackListen({ service: 'The policy server', host: '0.0.0.0', allowRemote: false, option: '--allow-remote' }); // throws
 */
export function checkLoopbackListen(options: { service: string; host: string; allowRemote: boolean; option: string }): void {
  if (options.allowRemote || isLoopback(options.host)) return;
  throw new ConfigError({
    context: `${options.service} refuses to listen beyond loopback`,
    issues: [
      {
        variable: options.option,
        message: `${JSON.stringify(options.host)} is reachable from other machines; listen on 127.0.0.1, or pass ${options.option} when others must reach it (a container, behind a firewall you control)`,
      },
    ],
  });
}
