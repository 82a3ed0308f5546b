/**
 * Preloaded (`node --import`) into a service with tracing off by
 * `bench:tracing`'s breakdown: an `AsyncLocalStorage` entered once, as the
 * SDK's context manager enters one per request, so Node 20 runs its hooks on
 * every promise of the process. What those hooks cost alone, with no SDK.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const storage = new AsyncLocalStorage<{ entered: true }>();
storage.enterWith({ entered: true });
