/** Transport mapping for an error code; used only at the edges (HTTP, JSON-RPC). */
export interface ErrorCodeInfo {
  httpStatus: number;
  jsonRpcCode: number;
}

/**
 * The single table from error codes to HTTP status and JSON-RPC codes.
 * Codes not listed here are server faults (500 / -32603).
 */
export const ERROR_CODES = {
  invalid_request: { httpStatus: 400, jsonRpcCode: -32600 },
  invalid_json: { httpStatus: 400, jsonRpcCode: -32700 },
  unsupported_media_type: { httpStatus: 415, jsonRpcCode: -32600 },
  payload_too_large: { httpStatus: 413, jsonRpcCode: -32600 },
  rate_limited: { httpStatus: 429, jsonRpcCode: -32029 },
  conflict: { httpStatus: 409, jsonRpcCode: -32600 },
  not_found: { httpStatus: 404, jsonRpcCode: -32601 },
  method_not_allowed: { httpStatus: 405, jsonRpcCode: -32601 },
  unknown_task: { httpStatus: 404, jsonRpcCode: -32601 },
  unknown_step: { httpStatus: 404, jsonRpcCode: -32601 },
  session_invalid: { httpStatus: 401, jsonRpcCode: -32001 },
  unauthorized: { httpStatus: 401, jsonRpcCode: -32001 },
  permission_denied: { httpStatus: 403, jsonRpcCode: -32003 },
  signature_invalid: { httpStatus: 401, jsonRpcCode: -32009 },
  invalid_agent_card: { httpStatus: 400, jsonRpcCode: -32602 },
  agent_not_ready: { httpStatus: 503, jsonRpcCode: -32010 },
  policy_unavailable: { httpStatus: 503, jsonRpcCode: -32011 },
  policy_refused: { httpStatus: 422, jsonRpcCode: -32016 },
  store_unavailable: { httpStatus: 503, jsonRpcCode: -32004 },
  model_not_found: { httpStatus: 404, jsonRpcCode: -32005 },
  model_runtime_unavailable: { httpStatus: 503, jsonRpcCode: -32006 },
  model_error: { httpStatus: 502, jsonRpcCode: -32007 },
  invalid_model_output: { httpStatus: 502, jsonRpcCode: -32012 },
  tool_loop_limit: { httpStatus: 502, jsonRpcCode: -32015 },
  memory_unavailable: { httpStatus: 503, jsonRpcCode: -32013 },
  memory_error: { httpStatus: 502, jsonRpcCode: -32014 },
  invalid_config: { httpStatus: 500, jsonRpcCode: -32603 },
  aborted: { httpStatus: 499, jsonRpcCode: -32008 },
  internal_error: { httpStatus: 500, jsonRpcCode: -32603 },
  // Raised by clients of other services (never sent by our servers).
  agent_http_error: { httpStatus: 502, jsonRpcCode: -32603 },
  invalid_response: { httpStatus: 502, jsonRpcCode: -32603 },
  event_too_large: { httpStatus: 502, jsonRpcCode: -32603 },
  stream_interrupted: { httpStatus: 502, jsonRpcCode: -32603 },
  // Raised by the command line and the process supervisor (exit codes, not HTTP).
  invalid_arguments: { httpStatus: 400, jsonRpcCode: -32602 },
  agent_not_found: { httpStatus: 404, jsonRpcCode: -32601 },
  project_not_found: { httpStatus: 404, jsonRpcCode: -32601 },
  unknown_service: { httpStatus: 404, jsonRpcCode: -32601 },
  trace_not_found: { httpStatus: 404, jsonRpcCode: -32601 },
  port_in_use: { httpStatus: 409, jsonRpcCode: -32603 },
  stack_running: { httpStatus: 409, jsonRpcCode: -32603 },
  build_failed: { httpStatus: 500, jsonRpcCode: -32603 },
  service_gave_up: { httpStatus: 500, jsonRpcCode: -32603 },
  supervisor_stopped: { httpStatus: 500, jsonRpcCode: -32603 },
  supervisor_failed: { httpStatus: 500, jsonRpcCode: -32603 },
  docker_unavailable: { httpStatus: 503, jsonRpcCode: -32603 },
  compose_file_missing: { httpStatus: 404, jsonRpcCode: -32601 },
  compose_failed: { httpStatus: 500, jsonRpcCode: -32603 },
  deploy_failed: { httpStatus: 500, jsonRpcCode: -32603 },
} as const satisfies Record<string, ErrorCodeInfo>;

/** Every code an error of this toolkit can carry. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** True when `code` is one of ours (a code read from another service's body may not be). */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);
}

export function errorCodeInfo(code: string): ErrorCodeInfo {
  return (ERROR_CODES as Record<string, ErrorCodeInfo>)[code] ?? ERROR_CODES.internal_error;
}
