/**
 * Agent-to-agent calls over the A2A protocol: agent cards, signed and
 * policy-validated connections, interaction flows, the validator, request
 * signing, and the A2A endpoint an agent serves.
 *
 * This file is the complete public surface of `framework_core/a2a`: names are exported
 * one by one, never with a wildcard, and a snapshot test keeps the list
 * deliberate (test/boundaries/exports.test.ts).
 */
export {
  loadAgentCard,
  parseAgentCard,
  cardFromConfig,
  cardRef,
  cardUrl,
  AgentCardFileSchema,
  A2A_PROTOCOL_VERSION,
  type AgentCardFile,
  type AgentCardMeta,
} from './agent-card.js';
export { agentConnection, type AgentConnectionOptions } from './agent-connection.js';
export { chunkFromStream, chunksFromResult, chunksFromStream, chunkFromTask, isFinalState, type A2AChunk, type A2ATaskState } from './a2a-chunk.js';
export { A2AResponse, NO_RESPONSE } from './a2a-response.js';
export { AgentInteractionFlow, InteractionFlowNode, NODE_LABEL_LENGTH, type FlowChunk } from './interaction-flow.js';
export { waitForAgent } from './wait-for-agent.js';
export { A2AValidator, createValidator, getValidator, accessCheckerFor, type A2AValidatorOptions, type ValidationResult } from './validator.js';
export { GuardianAccessChecker, OpaAccessChecker, type AccessChecker } from './access-checker.js';
export { accessDecisionFrom, decideAccess, A2A_ACCESS_PACKAGE, type AccessDecision } from './access-decision.js';
export { OpaPolicyClient, isPolicyPath, type PolicyClient } from './policy-client.js';
export { A2AValidationInputSchema, buildValidationInput, MESSAGE_PREVIEW_CHARS, type A2AValidationInput, type AgentRef } from './validation-input.js';
export { createAuditLog, disabledAuditLog, auditEvent, messageDigest, type AuditDecision, type AuditEvent, type AuditLog } from './audit-log.js';
export { signingFetch } from './signing-fetch.js';
export { createSigningKey, decodeSecret, generateSecret, type SigningKey } from './signing/signing-key.js';
export { KeyRing, type KeyRingOptions } from './signing/key-ring.js';
export { loadKeyRing, type LoadKeyRingOptions } from './signing/load-key-ring.js';
export {
  canonicalRequest,
  signRequest,
  verifyRequest,
  MAX_CLOCK_SKEW_SECONDS,
  SIGNATURE_HEADERS,
  SIGNATURE_SCHEME,
  type SignRequestOptions,
  type VerifiedCaller,
  type VerifyRequestOptions,
} from './signing/request-signature.js';
export type { NonceStore } from './signing/nonce-store.js';
export { InProcessNonceStore } from './signing/in-process-nonce-store.js';
export { KvNonceStore } from './signing/kv-nonce-store.js';
export { createNonceStore } from './signing/create-nonce-store.js';
export { FrameworkExecutor } from './framework-executor.js';
export { mountA2AEndpoint, AGENT_CARD_PATH, type A2AEndpointOptions } from './a2a-endpoint.js';
export { A2ARequestGuard, type A2ARequestGuardOptions, type AdmittedCaller } from './request-guard.js';
export { createA2AServer, type A2AServer } from './a2a-server.js';
export { KvTaskStore } from './kv-task-store.js';
export { createA2ATaskStore, createA2AStores, type A2ATaskStoreConfig, type ClosableTaskStore } from './create-a2a-task-store.js';
export { MemoryTaskStore, DEFAULT_MEMORY_TASK_LIMIT, type MemoryTaskStoreOptions } from './memory-task-store.js';
export { mountRestBinding, type RestBindingOptions } from './a2a-rest-binding.js';
export { restUrlFor, interfacesFor, A2A_REST_BINDING, A2A_LEGACY_PROTOCOL_VERSION, DEFAULT_MODES } from './agent-card.js';
export { WebhookPolicy } from './push/webhook-policy.js';
export { WebhookPushSender, NOTIFICATION_TOKEN_HEADER, type WebhookPushSenderOptions } from './push/webhook-push-sender.js';
export { KvPushNotificationStore, type KvPushNotificationStoreOptions } from './push/kv-push-notification-store.js';
export { CheckedPushNotificationStore } from './push/checked-push-store.js';
export { signAgentCard, verifyAgentCard, readAgentCardDocument, agentCardFromJson } from './card-signing.js';

export { stripSecrets, findSecretField, isSecretName } from '../core/secret-fields.js';
