/**
 * The Guardian: validates A2A access and evaluates domain policies by
 * asking the policy engine, and keeps the audit trail.
 *
 * This file is the complete public surface of `framework_core/guardian`: names are exported
 * one by one, never with a wildcard, and a snapshot test keeps the list
 * deliberate (test/boundaries/exports.test.ts).
 */
export { createGuardian, type GuardianOptions } from './create-guardian.js';
export { startGuardian, type RunningGuardian, type StartGuardianOptions } from './start-guardian.js';
export { guardianConfigFromEnv, DEFAULT_GUARDIAN_PORT, type GuardianConfig } from './guardian-config.js';
export { AuditTrail, type AuditTrailOptions } from './audit-trail.js';
export { DomainPolicyInputSchema, type DomainPolicyInput } from './domain-policy-input.js';
export { domainDecisionFrom, type DomainDecision } from './domain-decision.js';
