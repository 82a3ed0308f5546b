import { decisionAttributes } from '../core/telemetry/decision-attributes.js';
import { annotateActiveSpan } from '../core/telemetry/tracing.js';
import type { Context, Hono } from 'hono';
import { decideAccess, type AccessDecision } from '../a2a/access-decision.js';
import { auditEvent } from '../a2a/audit-log.js';
import { isPolicyPath, type PolicyClient } from '../a2a/policy-client.js';
import { A2AValidationInputSchema } from '../a2a/validation-input.js';
import { BadRequestError } from '../core/errors/bad-request-error.js';
import { FrameworkError } from '../core/framework-error.js';
import { isPlainObject } from '../core/json.js';
import { errorFields, silentLogger, type Logger } from '../core/logger.js';
import { createBaseApp } from '../core/server/base-app.js';
import { errorResponse } from '../core/server/http-error.js';
import { checkJsonDepth, readBodyText, readJsonBody, receiveNodeJson } from '../core/server/read-json-body.js';
import type { DirectHandler } from '../core/server/listen.js';
import { writeNodeError, writeNodeJson } from '../core/server/node-answer.js';
import { parseAuditQuery } from './audit-query.js';
import { AuditTrail } from './audit-trail.js';
import { domainDecisionFrom, type DomainDecision } from './domain-decision.js';
import { DomainPolicyInputSchema } from './domain-policy-input.js';
import { A2A_BUNDLE_PATH, DECISION_LOG_PATH, POLICY_BUNDLE_PATH, type AuditListResponse, type GuardianHealth } from './guardian-responses.js';
import { DecisionLogBatchSchema, type DecisionLogReceipt } from './decision-log-batch.js';
import { bundleSignatureProblem, signBundle, type PolicyBundle } from './policy-bundle.js';
import { freshnessHeaders, type BundleFreshness } from './bundle-freshness.js';
import { BundleNumbering } from './bundle-numbering.js';
import { PolicyUnavailableError } from '../a2a/errors/policy-unavailable-error.js';
import { KeyRing } from '../a2a/signing/key-ring.js';
import { SignatureError } from '../a2a/errors/signature-error.js';
import type { SigningKey } from '../a2a/signing/signing-key.js';
import { parseRequest } from '../core/server/parse-request.js';

export interface GuardianOptions {
  /** The policy engine asked for every decision (OPA or `framework-cli policy serve`). */
  policy: PolicyClient;
  /** Where decisions are recorded; default a fresh in-memory trail of 1000 events. */
  audit?: AuditTrail;
  logger?: Logger;
  /** Largest accepted request body; default 1 MiB. */
  maxBodyBytes?: number;
  /** The key (of the agent `guardian`) that signs policy bundles; without it no bundle is served (503 `policy_unavailable`). */
  bundleKey?: SigningKey;
  /** How long a served bundle (or a 304's freshness statement) stays valid after it is signed; default 60000 ms. */
  bundleTtlMs?: number;
}

export const DEFAULT_GUARDIAN_MAX_BODY_BYTES = 1024 * 1024;
/** How long a bundle the Guardian signs stays valid: agents must hear from it again within this. */
export const DEFAULT_BUNDLE_TTL_MS = 60_000;

const POLICIES_PREFIX = '/v1/policies/';
/** Decision ids remembered to drop repeats of a retried batch. */
const SEEN_DECISIONS_MAX = 100_000;
const EVALUATE_SUFFIX = '/evaluate';

/**
 * The Guardian: an HTTP service in front of the policy engine that validates
 * agent-to-agent calls and evaluates domain policies. It never guesses: when
 * the engine cannot answer, it says so (503 `policy_unavailable`) and the
 * caller's validator applies its mode.
 *
 * - `POST /v1/a2a/validate` (A2A validation input) → `{allowed, reason}`, audited
 * - `POST /v1/policies/{package path}/evaluate` (domain input) → `{allow, deny, require_approval}`
 * - `GET /v1/audit?limit=&since=` → `{events}` newest last
 * - `GET /v1/bundles/policies` (also `GET /v1/bundles/a2a`) → `{revision, digest, issued_at, expires_at, modules: [{id, raw}]}`
 *   with `ETag` = digest, signed with `bundleKey` (see `policy-bundle.ts`): the policies the engine holds, for agents that
 *   decide in process (A2A_DECISIONS=local, `ToolGate` with `decide: 'local'`); 304 on `If-None-Match` with a signed
 *   freshness statement (`bundle-freshness.ts`); 503 without `bundleKey`
 * - `POST /v1/logs` (`{events: [...]}`, the decisions agents made in process) → `{accepted}`; appended to the audit trail
 * - `GET /health` → 200 `{status: 'ok'}` or 503 `{status: 'degraded'}`
 *
 * @example
 * const app = createGuardian({ policy: new OpaPolicyClient({ url: 'http://127.0.0.1:8181' }) });
 * const res = await app.request('/health');
 */
export function createGuardian(options: GuardianOptions): Hono & { direct: DirectHandler } {
  const { policy } = options;
  const audit = options.audit ?? new AuditTrail();
  const logger = options.logger ?? silentLogger;
  const maxBytes = options.maxBodyBytes ?? DEFAULT_GUARDIAN_MAX_BODY_BYTES;
  const app = createBaseApp({
    logger,
    notFoundHint:
      '; the Guardian serves POST /v1/a2a/validate, POST /v1/policies/<package>/evaluate, GET /v1/audit, GET /v1/bundles/a2a, POST /v1/logs and GET /health',
  });

  app.get('/health', async (c) => {
    if (await policy.healthy()) return c.json({ status: 'ok', policy_engine: 'up' } satisfies GuardianHealth);
    return c.json({ status: 'degraded', policy_engine: 'down', policy_url: policy.url } satisfies GuardianHealth, 503);
  });

  /** An A2A validation: the policy's decision, audited (also when none could be had), on the request's span. */
  const validate = async (raw: unknown): Promise<AccessDecision> => {
    const input = parseRequest({ schema: A2AValidationInputSchema, raw, what: 'A2A validation input' });
    const record = (decision: AccessDecision) =>
      audit.record(
        auditEvent({
          source: input.source_agent.name,
          target: input.target_agent.name,
          decision: decision.allowed ? 'allowed' : 'denied',
          reason: decision.reason,
          checked_by: 'guardian',
          // The Guardian only ever sees the preview, so that is what the digest covers.
          message: input.communication.message_preview,
        }),
      );
    let decision: AccessDecision;
    try {
      decision = await decideAccess(policy, input);
    } catch (error) {
      const reason = FrameworkError.isInstance(error) ? error.message : 'the Guardian failed while asking the policy engine';
      record({ allowed: false, reason });
      logger.warn('no policy decision', { source: input.source_agent.name, target: input.target_agent.name, ...errorFields(error) });
      throw error;
    }
    record(decision);
    annotateActiveSpan(decisionAttributes({ result: decision.allowed ? 'allow' : 'deny', reasons: [decision.reason], decidedBy: 'guardian' }));
    logger.debug('a2a decision', { source: input.source_agent.name, target: input.target_agent.name, ...decision });
    return decision;
  };

  app.post('/v1/a2a/validate', async (c) => c.json((await validate(await readJsonBody(c, { maxBytes }))) satisfies AccessDecision));

  app.post(`${POLICIES_PREFIX}*`, async (c) => {
    const path = packagePath(c);
    if (path === undefined) return c.notFound();
    const input = parseRequest({ schema: DomainPolicyInputSchema, raw: await readJsonBody(c, { maxBytes }), what: 'policy input' });
    const document = await policy.evaluate(path, input);
    if (document === undefined) {
      throw new BadRequestError({ code: 'not_found', message: `no policy package "${path.replaceAll('/', '.')}" is loaded` });
    }
    if (!isPlainObject(document)) {
      throw new BadRequestError({
        code: 'invalid_request',
        message: `data.${path.replaceAll('/', '.')} is a ${Array.isArray(document) ? 'array' : typeof document}, not a policy package; ask for the package path (without the rule name).`,
      });
    }
    const decision = domainDecisionFrom({ document, path });
    annotateActiveSpan({ 'opa.path': path, ...decisionAttributes({ result: domainResult(decision), reasons: decision.deny, decidedBy: 'guardian' }) });
    logger.debug('domain decision', { package: path, ...decision });
    return c.json(decision satisfies DomainDecision);
  });

  const numbering = new BundleNumbering();
  const bundleTtlMs = options.bundleTtlMs ?? DEFAULT_BUNDLE_TTL_MS;
  if (!Number.isSafeInteger(bundleTtlMs) || bundleTtlMs <= 0 || bundleTtlMs > 86_400_000)
    throw new TypeError(`bundleTtlMs must be a whole number of milliseconds from 1 to 86400000 (a day); got ${String(bundleTtlMs)}`);
  const serveBundle = async (c: Context): Promise<Response> => {
    if (!options.bundleKey) {
      // Agents refuse an unsigned bundle: serving one would only invite an agent that does not check to use it.
      throw new PolicyUnavailableError({
        url: 'this Guardian',
        detail: 'it has no key of the agent "guardian" (A2A_KEYS_FILE or A2A_KEYS) to sign policy bundles with, and serves no unsigned bundle',
      });
    }
    if (!policy.listPolicies)
      throw new BadRequestError({ code: 'not_found', message: 'this policy engine client cannot list its policies, so no bundle is served' });
    const modules = (await policy.listPolicies()).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const { revision, digest } = numbering.number(modules);
    const issued = Date.now();
    const times = { issued_at: new Date(issued).toISOString(), expires_at: new Date(issued + bundleTtlMs).toISOString() };
    const etag = `"${digest}"`;
    const headers: Record<string, string> = { etag, 'cache-control': 'no-cache' };
    if (c.req.header('if-none-match') === etag) {
      // A 304 keeps the agent's bundle fresh only through this signed statement of its own.
      const statement = { revision, digest, ...times } satisfies BundleFreshness;
      return new Response(null, { status: 304, headers: { ...headers, ...freshnessHeaders({ statement, key: options.bundleKey }) } });
    }
    const body = JSON.stringify({ revision, digest, ...times, modules } satisfies PolicyBundle);
    return new Response(body, { status: 200, headers: { ...headers, ...signBundle({ body, key: options.bundleKey }), 'content-type': 'application/json' } });
  };
  app.get(POLICY_BUNDLE_PATH, serveBundle);
  app.get(A2A_BUNDLE_PATH, serveBundle);

  const seenDecisions = new Set<string>();
  const logKeys = options.bundleKey ? new KeyRing([options.bundleKey]) : undefined;
  app.post(DECISION_LOG_PATH, async (c) => {
    let raw: unknown;
    if (logKeys) {
      // Only holders of the Guardian key (the agents that decide locally) may add to the audit trail:
      // the signature covers the exact body bytes, so they are read as text first.
      const text = await readBodyText(c, maxBytes);
      const problem = bundleSignatureProblem({ body: text, keys: logKeys, header: (name) => c.req.header(name), purpose: 'decision-logs' });
      if (problem !== undefined) throw new SignatureError({ failure: 'bad_signature', message: `decision logs refused: ${problem}` });
      try {
        raw = JSON.parse(text) as unknown;
      } catch {
        throw new BadRequestError({ code: 'invalid_json', message: 'The request body is not valid JSON.' });
      }
      checkJsonDepth(raw);
    } else {
      raw = await readJsonBody(c, { maxBytes });
    }
    const batch = parseRequest({ schema: DecisionLogBatchSchema, raw, what: 'decision log batch' });
    for (const event of batch.events) {
      // A retried batch repeats events already taken: record each decision once.
      if (seenDecisions.has(event.decision_id)) continue;
      seenDecisions.add(event.decision_id);
      if (seenDecisions.size > SEEN_DECISIONS_MAX) seenDecisions.delete(seenDecisions.values().next().value as string);
      audit.record(event);
    }
    logger.debug('decision logs received', { events: batch.events.length });
    return c.json({ accepted: batch.events.length } satisfies DecisionLogReceipt);
  });

  app.get('/v1/audit', (c) => {
    const query = parseAuditQuery({ query: { limit: c.req.query('limit'), since: c.req.query('since') } });
    return c.json({ events: audit.recent({ limit: query.limit, ...(query.since ? { since: query.since } : {}) }) } satisfies AuditListResponse);
  });

  for (const [route, allow] of [
    ['/health', 'GET'],
    ['/v1/a2a/validate', 'POST'],
    ['/v1/audit', 'GET'],
    [DECISION_LOG_PATH, 'POST'],
    [POLICY_BUNDLE_PATH, 'GET'],
    [A2A_BUNDLE_PATH, 'GET'],
    [`${POLICIES_PREFIX}*`, 'POST'],
  ] as const) {
    app.all(route, (c) => {
      if (route.endsWith('*') && !c.req.path.endsWith(EVALUATE_SUFFIX)) return c.notFound();
      return errorResponse(new BadRequestError({ code: 'method_not_allowed', message: `${c.req.method} is not allowed on ${c.req.path}; use ${allow}.` }), {
        Allow: allow,
      });
    });
  }
  /**
   * `POST /v1/a2a/validate` answered on Node's own request and response,
   * below Hono, as the policy server's decisions are: the Guardian's hot
   * route (one call per A2A check with A2A_DECISIONS=guardian, the default).
   * The exact path only (with a query string the app answers); the same
   * checks in the same order (JSON content type, body limit, JSON, schema),
   * the same decision, audit and `{code, message}` errors.
   */
  const direct: DirectHandler = (request, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/a2a/validate') return false;
    const fail = (error: unknown) => writeNodeError(response, error, { logger, path: '/v1/a2a/validate' });
    receiveNodeJson(request, response, { maxBytes }, (error, raw) => {
      if (error) fail(error);
      else validate(raw).then((decision) => writeNodeJson(response, 200, decision), fail);
    });
    return true;
  };
  return Object.assign(app, { direct });
}

/**
 * The package path of `/v1/policies/{a}/{b}/evaluate` (`a/b`); undefined when
 * the route is not an evaluate route; a 400 when a segment is not a package name.
 */
function packagePath(c: Context): string | undefined {
  const { path } = c.req;
  if (!path.startsWith(POLICIES_PREFIX) || !path.endsWith(EVALUATE_SUFFIX)) return undefined;
  const inner = path.slice(POLICIES_PREFIX.length, -EVALUATE_SUFFIX.length);
  if (inner === '') return undefined;
  const segments = inner.split('/');
  const bad = segments.find((segment) => !isPolicyPath(segment));
  if (bad !== undefined) {
    throw new BadRequestError({
      code: 'invalid_request',
      message: `${JSON.stringify(bad)} is not a policy package name: use letters, digits and "_", not starting with a digit (e.g. /v1/policies/trading/evaluate).`,
    });
  }
  return segments.join('/');
}

/** The one word a domain decision comes to, as the tool gate reads it: any denial first, then approval, then allow. */
function domainResult(decision: DomainDecision): 'allow' | 'deny' | 'require_approval' {
  if (decision.deny.length > 0) return 'deny';
  if (decision.require_approval) return 'require_approval';
  return decision.allow ? 'allow' : 'deny';
}
