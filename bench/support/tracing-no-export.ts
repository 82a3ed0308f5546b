/**
 * Preloaded (`node --import`) into a service with tracing on by
 * `bench:tracing`'s breakdown: the SDK's `BatchSpanProcessor` takes no span
 * when one ends, so every span is started, recorded and ended but none is
 * queued, encoded or sent. What tracing costs without its export.
 */
import { createRequire } from 'node:module';
import type * as SdkTraceBase from '@opentelemetry/sdk-trace-base';

// The copy the service's SDK loads (CommonJS: one module cache).
const { BatchSpanProcessor } = createRequire(import.meta.url)('@opentelemetry/sdk-trace-base') as typeof SdkTraceBase;
BatchSpanProcessor.prototype.onEnd = () => undefined;
