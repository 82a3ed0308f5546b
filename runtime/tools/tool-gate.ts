import { decisionAttributes } from '../core/telemetry/decision-attributes.js';
import { inSpan } from '../core/telemetry/tracing.js';
import { z } from 'zod';
import { loadA2AConfig, type A2AValidationMode, type Env } from '../core/config.js';
import { isPlainObject } from '../core/json.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { nonFiniteNumberAt } from '../core/non-finite-number.js';
import { checkJsonDepth, MAX_JSON_DEPTH } from '../core/server/read-json-body.js';
import { domainDecisionFrom } from '../guardian/domain-decision.js';
import { isUnavailableStatus } from '../a2a/errors/policy-unavailable-error.js';
import { callFailureDetail, jsonCall } from '../a2a/http-fetch.js';
import type { KeyRing } from '../a2a/signing/key-ring.js';
import type { BundleFollower } from '../guardian/bundle-follower.js';
import type { BundleStateFile } from '../guardian/bundle-state-file.js';
import { localBundleOptions, toolBundleFollower } from './tool-bundle-follower.js';
import { toJS } from '../policy/value-json.js';

/** One tool call as the model asked for it. */
export interface GatedToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/** What the Guardian (or, without an answer, the validation mode) decided about one tool call. */
export type ToolDecision =
  | { action: 'allow'; reasons: string[]; decidedBy: 'guardian' | 'bundle' | 'mode' | 'ungated' }
  | { action: 'deny'; reasons: string[]; decidedBy: 'guardian' | 'bundle' | 'mode' | 'unreadable' }
  | { action: 'require_approval'; reasons: string[]; decidedBy: 'guardian' | 'bundle' };

export interface ToolGateOptions {
  /** The Guardian's address; without it every gated call is decided by `mode` as "Guardian unavailable". */
  guardianUrl?: string | undefined;
  /** As for A2A calls: `strict` denies without an answer, `permissive` allows, `disabled` skips the Guardian. */
  mode: A2AValidationMode;
  /** The agent making the calls: `source_agent` of the policy input. */
  agent: { name: string; description?: string; url?: string };
  /** Which policy package decides which tool (`{ place_trade: 'trading' }`); `*` for every other tool. A tool with no package runs ungated. */
  policies: Readonly<Record<string, string>>;
  /** Where the amount is in a tool's arguments (a dotted path); default `amount`. Per tool, or `*`. */
  amountPaths?: Readonly<Record<string, string>>;
  /** Milliseconds to wait for the Guardian; default 5000. */
  timeoutMs?: number;
  /**
   * Where each call is decided: `guardian` (default) asks the Guardian over
   * HTTP; `local` evaluates, in this process, the policies the Guardian
   * serves (`GET /v1/bundles/policies`), fetched at the first gated call and
   * re-checked every `bundleRefreshMs` in the background (ETag). The bundle
   * must be signed with the Guardian's key (`bundleKeys`), and neither older
   * than one used before nor expired; a bundle signed more than
   * `bundleMaxAgeMs` ago counts as the Guardian being unavailable, so `mode`
   * decides (strict denies).
   */
  decide?: 'guardian' | 'local';
  /** How often a local bundle is re-checked with the Guardian; default 5000 ms. */
  bundleRefreshMs?: number;
  /** How long after the Guardian signed it a local bundle may be used; default 60000 ms. */
  bundleMaxAgeMs?: number;
  /** With `local`: the ring holding the key of the agent `guardian` that every bundle must be signed with; default the ring of `A2A_KEYS_FILE`/`A2A_KEYS`. */
  bundleKeys?: KeyRing;
  /** With `local`: where the newest bundle revision used is kept across restarts; default `POLICY_BUNDLE_STATE_FILE` (see `BundleStateFile`). */
  bundleState?: BundleStateFile;
  logger?: Logger;
  /** Clock, for tests; default `Date.now`. */
  now?: () => number;
}

const DecisionSchema = z.object({ allow: z.boolean(), deny: z.array(z.string()), require_approval: z.boolean() });

/** A decision from the Guardian (or the bundle), or why none could be had. */
/** What asking gave: a decision, nobody to answer (the mode decides), or a refusal of this input (denied in every mode). */
type Asked = { answer: z.infer<typeof DecisionSchema> } | { unavailable: string } | { refused: string };
const WINDOW_MS = 60_000;

/**
 * Reads `TOOL_POLICIES` (`tool:package,tool:package`, `*:package` for every
 * other tool) and `TOOL_AMOUNT_PATHS` (`tool:path`). Throws a `TypeError`
 * naming the bad entry.
 *
 * @example
 * parseToolPolicies('place_trade:trading,*:tools'); // { place_trade: 'trading', '*': 'tools' }
 */
export function parseToolPolicies(text: string | undefined, setting = 'TOOL_POLICIES'): Record<string, string> {
  const policies: Record<string, string> = {};
  for (const entry of (text ?? '').split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    const match = /^([A-Za-z0-9_*-]+)\s*:\s*([A-Za-z_][A-Za-z0-9_.]*)$/.exec(entry);
    if (!match) throw new TypeError(`${setting}: "${entry}" is not tool:package (for example place_trade:trading)`);
    policies[match[1] as string] = match[2] as string;
  }
  return policies;
}

function valueAt(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/**
 * Why the policy could not be given a call's input exactly, or undefined when
 * it can: a number that is not finite anywhere in the arguments (JSON would
 * carry it as null), or an amount that is there but is not a finite number.
 * Such a call is denied, never sent with the field left out.
 */
function unreadableInput(args: unknown, amount: unknown, amountPath: string): string | undefined {
  // The arguments sit two levels down in the input (metadata.arguments), which the Guardian reads at most MAX_JSON_DEPTH deep.
  try {
    checkJsonDepth({ metadata: { arguments: args } });
  } catch {
    return `the arguments nest arrays and objects more than ${MAX_JSON_DEPTH - 2} deep, deeper than the Guardian reads, so the policy cannot judge this call`;
  }
  const overflow = nonFiniteNumberAt(args);
  if (overflow !== undefined) {
    return `argument ${overflow === '' ? '(the whole arguments)' : overflow} is not a finite number, so the policy cannot judge this call`;
  }
  if (amount !== undefined && typeof amount !== 'number') {
    return `the amount (${amountPath}) is ${amount === null ? 'null' : `a ${Array.isArray(amount) ? 'list' : typeof amount}`}, not a number, so the policy cannot judge this call`;
  }
  return undefined;
}

/**
 * Asks the Guardian before each tool call, with the spec's domain policy
 * input: `source_agent` (the agent), `target_agent` `{name: <tool>}`,
 * `action` (the tool's name), `amount` (from the arguments, when there),
 * `context` (`context_id`, timestamp) and `metadata` (the arguments and the agent's `requests_last_minute`: gated calls in the last 60 s, this
 * one included, counted in this process).
 *
 * Never throws: a Guardian that cannot be asked (down, timed out,
 * overloaded), or answers something that is not a decision, is decided by
 * the mode, exactly as for A2A calls (`strict` denies, `permissive` allows,
 * `disabled` never asks). A call the Guardian refuses (a 4xx: arguments too
 * large for it, say) or its policy fails on (a 500, or an evaluation error
 * of the local bundle) is denied in every mode. A call whose input
 * the policy could not read exactly (a number that is not finite, an amount
 * that is not a number, arguments nested deeper than the Guardian reads) is denied, in `permissive` mode too, never sent with
 * the field left out.
 *
 * @example
 * const gate = new ToolGate({ guardianUrl: 'http://127.0.0.1:8090', mode: 'strict', agent: { name: 'trader' }, policies: { place_trade: 'trading' } });
 * await gate.decide({ id: 'c1', name: 'place_trade', arguments: { symbol: 'ACME', amount: 10000 } }, { contextId: 'ctx' });
 * // { action: 'require_approval', reasons: [...], decidedBy: 'guardian' }
 */
export class ToolGate {
  readonly #options: ToolGateOptions;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #recent: number[] = [];
  #follower: BundleFollower | undefined;

  constructor(options: ToolGateOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#now = options.now ?? Date.now;
  }

  /** The package that decides `tool`, or undefined when it runs ungated. */
  packageOf(tool: string): string | undefined {
    return this.#options.policies[tool] ?? this.#options.policies['*'];
  }

  async decide(call: GatedToolCall, options: { contextId?: string | undefined; signal?: AbortSignal } = {}): Promise<ToolDecision> {
    return inSpan(`tool_gate ${call.name}`, { attributes: { 'gen_ai.tool.name': call.name, 'gen_ai.tool.call.id': call.id } }, async (span) => {
      const decision = await this.#decide(call, options);
      span.setAttributes(decisionAttributes({ result: decision.action, reasons: decision.reasons, decidedBy: decision.decidedBy }));
      return decision;
    });
  }

  async #decide(call: GatedToolCall, options: { contextId?: string | undefined; signal?: AbortSignal }): Promise<ToolDecision> {
    const pkg = this.packageOf(call.name);
    if (pkg === undefined) return { action: 'allow', reasons: [], decidedBy: 'ungated' };
    const { mode, guardianUrl } = this.#options;
    if (mode === 'disabled') return this.#audit(call, { action: 'allow', reasons: ['validation disabled: the Guardian was not asked'], decidedBy: 'mode' });
    const amountPath = this.#options.amountPaths?.[call.name] ?? this.#options.amountPaths?.['*'] ?? 'amount';
    const amount = valueAt(call.arguments, amountPath);
    const unreadable = unreadableInput(call.arguments, amount, amountPath);
    if (unreadable !== undefined) return this.#audit(call, { action: 'deny', reasons: [unreadable], decidedBy: 'unreadable' });
    const now = this.#now();
    while (this.#recent.length > 0 && (this.#recent[0] as number) <= now - WINDOW_MS) this.#recent.shift();
    this.#recent.push(now);
    if (!guardianUrl) return this.#unavailable(call, 'no Guardian is configured (GUARDIAN_URL)');
    const input = {
      source_agent: this.#options.agent,
      target_agent: { name: call.name },
      action: call.name,
      ...(amount === undefined ? {} : { amount }),
      context: { ...(options.contextId ? { context_id: options.contextId } : {}), timestamp: new Date(now).toISOString() },
      metadata: { arguments: call.arguments, requests_last_minute: this.#recent.length, tool_call_id: call.id },
    };
    const asked = this.#options.decide === 'local' ? await this.#decideLocally(pkg, input) : await this.#askGuardian(guardianUrl, pkg, input, options.signal);
    if ('unavailable' in asked) return this.#unavailable(call, asked.unavailable);
    const decidedBy = this.#options.decide === 'local' ? 'bundle' : 'guardian';
    // The question reached the policy and could not be decided: arguments a caller shaped must not turn that into permissive's allow.
    if ('refused' in asked) return this.#audit(call, { action: 'deny', reasons: [`${asked.refused}; denied in every mode`], decidedBy });
    const answer = asked.answer;
    if (answer.deny.length > 0) return this.#audit(call, { action: 'deny', reasons: answer.deny, decidedBy });
    if (answer.require_approval) return this.#audit(call, { action: 'require_approval', reasons: [`policy ${pkg} requires a person's approval`], decidedBy });
    if (answer.allow) return this.#audit(call, { action: 'allow', reasons: [], decidedBy });
    return this.#audit(call, { action: 'deny', reasons: [`not allowed by policy ${pkg}`], decidedBy });
  }

  async #askGuardian(guardianUrl: string, pkg: string, input: unknown, signal: AbortSignal | undefined): Promise<Asked> {
    const url = `${guardianUrl.replace(/\/+$/, '')}/v1/policies/${pkg.split('.').map(encodeURIComponent).join('/')}/evaluate`;
    let answer: z.infer<typeof DecisionSchema>;
    try {
      // Over node:http (the instrumented fetch within a span while tracing is on), a redirect refused, the answer bounded.
      const { ok, status, text } = await jsonCall(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(input),
        signal,
        timeoutMs: this.#options.timeoutMs ?? 5000,
      });
      if (!ok) {
        const why = `the Guardian answered HTTP ${status}: ${text.slice(0, 300)}`;
        return isUnavailableStatus(status) ? { unavailable: why } : { refused: why };
      }
      const parsed = DecisionSchema.safeParse(JSON.parse(text));
      if (!parsed.success) return { unavailable: 'the Guardian answered something that is not {allow, deny, require_approval}' };
      answer = parsed.data;
    } catch (error) {
      if (signal?.aborted) throw error;
      return { unavailable: `the Guardian could not be asked (${callFailureDetail(error)})` };
    }
    return { answer };
  }

  /** Decides from the Guardian's policy bundle, evaluated here (see `decide: 'local'`). */
  async #decideLocally(pkg: string, input: unknown): Promise<Asked> {
    let follower: BundleFollower;
    try {
      follower = this.#follower ??= toolBundleFollower({
        guardianUrl: this.#options.guardianUrl ?? '',
        refreshMs: this.#options.bundleRefreshMs ?? 5_000,
        maxAgeMs: this.#options.bundleMaxAgeMs ?? 60_000,
        timeoutMs: this.#options.timeoutMs ?? 5000,
        keys: this.#options.bundleKeys,
        state: this.#options.bundleState,
        logger: this.#logger,
      });
    } catch (error) {
      return { unavailable: `the policy bundle cannot be verified (${error instanceof Error ? error.message : String(error)})` };
    }
    const state = await follower.ready(); // the first call waits; later ones decide with what they have
    if ('unavailable' in state) return { unavailable: state.unavailable };
    let document: unknown;
    try {
      const value = state.policy.evaluate(pkg.split('.'), input);
      document = value === undefined ? undefined : toJS(value);
    } catch (error) {
      return { refused: `policy ${pkg} could not be evaluated for this call (${error instanceof Error ? error.message : String(error)})` };
    }
    // As the Guardian's 404 for a package it does not hold: an answer about this call (denied in every mode), not an outage.
    if (!isPlainObject(document)) return { refused: `the policy bundle has no package ${pkg}` };
    return { answer: domainDecisionFrom({ document, path: pkg.replaceAll('.', '/') }) };
  }

  #unavailable(call: GatedToolCall, why: string): ToolDecision {
    if (this.#options.mode === 'permissive') return this.#audit(call, { action: 'allow', reasons: [`permissive mode: ${why}`], decidedBy: 'mode' });
    return this.#audit(call, { action: 'deny', reasons: [`strict mode: ${why}`], decidedBy: 'mode' });
  }

  /** Every decision about a gated call goes to the log: denials and approvals at warn, the rest at info. */
  #audit(call: GatedToolCall, decision: ToolDecision): ToolDecision {
    const fields = {
      agent: this.#options.agent.name,
      tool: call.name,
      tool_call_id: call.id,
      decision: decision.action,
      decided_by: decision.decidedBy,
      reasons: decision.reasons,
    };
    if (decision.action === 'allow') this.#logger.info('tool call allowed', fields);
    else this.#logger.warn(decision.action === 'deny' ? 'tool call denied' : 'tool call needs approval', fields);
    return decision;
  }
}

/**
 * The gate the environment describes, as every generated agent and the
 * trader example build it: the Guardian and mode of the A2A settings
 * (`GUARDIAN_URL`, `A2A_VALIDATION_MODE`), `TOOL_POLICIES` (else
 * `defaultPolicies`), `TOOL_AMOUNT_PATHS` and `TOOL_DECISIONS` (`guardian`,
 * the default, or `local`: decide in process from the Guardian's bundle). Throws `ConfigError` or a
 * `TypeError` naming a bad setting. With no policy at all, every call runs
 * ungated (set `TOOL_POLICIES=*:<package>` to gate every tool).
 *
 * @example
 * const gate = toolGateFromEnv({ agent: { name: 'trader' }, defaultPolicies: 'place_trade:trading' });
 */
export function toolGateFromEnv(options: { agent: ToolGateOptions['agent']; env?: Env; defaultPolicies?: string; logger?: Logger }): ToolGate {
  const env = options.env ?? process.env;
  const a2a = loadA2AConfig({ env });
  return new ToolGate({
    guardianUrl: a2a.guardianUrl,
    mode: a2a.a2aValidationMode,
    agent: options.agent,
    policies: parseToolPolicies(env.TOOL_POLICIES ?? options.defaultPolicies),
    ...localBundleOptions({ decide: toolDecisions(env.TOOL_DECISIONS), env }),
    ...(env.TOOL_AMOUNT_PATHS ? { amountPaths: parseToolPolicies(env.TOOL_AMOUNT_PATHS, 'TOOL_AMOUNT_PATHS') } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
}

function toolDecisions(value: string | undefined): 'guardian' | 'local' {
  if (value === undefined || value === '' || value === 'guardian') return 'guardian';
  if (value === 'local') return 'local';
  throw new TypeError(`TOOL_DECISIONS: "${value}" is not guardian or local`);
}
