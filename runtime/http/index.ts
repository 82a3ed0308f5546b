/**
 * The HTTP front door of an agent (full and minimal), its client, and the
 * server-sent-events encoding they share.
 *
 * This file is the complete public surface of `framework_core/http`: names are exported
 * one by one, never with a wildcard, and a snapshot test keeps the list
 * deliberate (test/boundaries/exports.test.ts).
 */
export { createFrontDoor, QueryRequestSchema, DEFAULT_MAX_BODY_BYTES, type AgentIdentity, type FrontDoorOptions, type QueryRequest } from './front-door.js';
export { createMinimalFrontDoor, type MinimalFrontDoorOptions } from './minimal-front-door.js';
export { listen, type Listening } from '../core/server/listen.js';
export { encodeSseEvent, encodeSseComment, SSE_HEADERS, type SseEvent } from '../core/server/sse.js';
export { FrontDoorClient, type FrontDoorClientOptions, type FrontDoorSession } from './front-door-client.js';
export { parseFrontDoorEvent, type ReceivedSseEvent } from './front-door-event.js';
