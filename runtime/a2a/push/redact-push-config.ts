import type { TaskPushNotificationConfig } from '@a2a-js/sdk';

/** What a secret of a push config reads as once stored: it is set, and its value is not shown. */
export const REDACTED = '[redacted]';

/**
 * A copy of `config` fit to send back to a caller: the webhook's `token` and
 * `authentication.credentials` are write-only (accepted on create, kept for
 * sending notifications, never returned). A set secret reads `[redacted]`, an
 * empty one stays empty, so the caller can tell which were given; the URL,
 * the id and the authentication scheme are shown as stored.
 *
 * @example
 * redactPushConfig({ ...config, token: 'tok-1' }).token; // '[redacted]'
 */
export function redactPushConfig(config: TaskPushNotificationConfig): TaskPushNotificationConfig {
  const authentication = config.authentication
    ? { ...config.authentication, credentials: config.authentication.credentials ? REDACTED : '' }
    : config.authentication;
  return { ...config, token: config.token ? REDACTED : '', authentication };
}
