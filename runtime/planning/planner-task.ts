import { InvalidModelOutputError } from '../core/errors/invalid-model-output-error.js';
import { AgentResponse, PLAN_CONFIRMATION } from '../core/agent-response.js';
import type { FrameworkCore, StepContext } from '../core/framework-core.js';
import { parseTaskInput } from '../core/task-input.js';
import { classifyPlanConfirmationReply, DEFAULT_MAX_PLAN_AGE_MS } from './classify-plan-confirmation-reply.js';
import { lostSteps } from './edit-plan.js';
import { applyPlanEdits, parsePlanEdits, type EditedPlan, type StepQuestion } from './plan-edits.js';
import { claimPendingPlan, clearPendingPlan, markAwaitingModification, recordPendingPlan, recordPlanDecision } from './pending-plan.js';
import { PENDING_PLAN_KEY, PlanResultSchema, type PendingPlan, type PlanResult, type StepChange } from './plan-records.js';
import { formatPlanSummary, guessLanguage, toDisplayPlan, type PlanChanges, type SummaryLanguage } from './plan-summary.js';
import type { PastTaskResult, PlannerMemory } from './planner-memory.js';
import { replyLanguage } from './reply-language.js';

/** A sentinel reply: a client's button, never a request to plan. */
const SENTINEL = /^\s*PLAN_CONFIRM_(APPROVE|REJECT|MODIFY)\b/;

/** One action's outcome, as the `execute_action` step returns it. */
export interface ActionOutcome {
  outcome: string;
}

export interface PlannerOptions {
  /**
   * The `plan` step: turns a request into a plan (an LLM call, or anything
   * else). `pastResults` are related finished tasks recalled from system
   * memory (empty without `memory`), for example for `generatePlan({ pastResults })`.
   */
  plan: (input: { query: string; contextId: string | undefined; pastResults: readonly string[] }, context: StepContext) => Promise<PlanResult>;
  /** The `execute_action` step: carries out one action (locally, or by delegating over A2A). */
  executeAction: (input: { action: string; contextId: string | undefined; index: number; total: number }, context: StepContext) => Promise<ActionOutcome>;
  /**
   * The `edit_plan` step, for changes the edit parser cannot place ("make it
   * cheaper"): returns the whole plan with the change made (for example
   * `editPlanWithModel`). Edits the parser reads ("change step 2 to …",
   * "remove step 3", "add … at the end") never reach it. A result that drops,
   * rewords or reorders steps the person did not mention is refused and
   * asked for once more, then the person is asked to rephrase. Without it,
   * only the parser's edits are understood.
   */
  editPlan?: (
    input: { objective: string; actions: readonly string[]; request: string; problem?: string; contextId: string | undefined },
    context: StepContext,
  ) => Promise<readonly string[]>;
  /** Name of the task; default `route_to_task`. */
  taskName?: string;
  /** Status(es) shown before each action; default "Step i/n: <action>". */
  stepStatus?: (index: number, total: number, action: string) => string | readonly string[];
  /** A proposed plan older than this counts as gone; default 1 hour. */
  maxPlanAgeMs?: number;
  /**
   * System memory of a swarm (alpha): related past results are recalled before
   * planning, a proposed plan is recorded as a pending clarification until it
   * is decided, and each executed plan's results are remembered. A failing
   * memory service is reported as a status; planning goes on without it.
   */
  memory?: PlannerMemory;
}

const TEXT = {
  en: {
    planning: 'Planning...',
    recalled: (n: number) => `Recalled ${n} related past result(s) from system memory`,
    memoryFailed: (what: string, message: string) => `System memory could not ${what} (${message}); going on without it`,
    cancelled: 'The plan was cancelled. Nothing was executed.',
    whatToChange: 'What would you like to change in the plan? Describe the changes (for example "change step 2 to ...").',
    notPending: 'That plan is no longer waiting for a decision (it was replaced, cancelled or expired). Nothing was executed.',
    expired: 'That plan expired before a decision was made, so nothing was executed. Send your request again for a new plan.',
    noPlan: 'There is no plan waiting for a decision in this conversation. Nothing was executed.',
    approvalsOff: (why: string) => `Nothing was executed: no plan can be approved here, because ${why}`,
    unclear: 'No problem, the plan is still waiting. Reply "yes" to run it, "no" to cancel it, or say what to change.',
    revising: 'Revising the plan...',
    cannotApply: (problem: string) => `I could not make that change: ${problem}`,
    notUnderstood: (parts: string) => `I could not tell how to change the plan for: ${parts}.`,
    editHelp:
      'Say it like: "change step 2 to ...", "remove step 3", "add ... at the end" (or "before step 2", "after step 1"), "move step 4 before step 1", "swap steps 1 and 2", "rename the objective to ...".',
    modelLost: (steps: string) => `The revised plan left out or rewrote steps you did not mention (${steps}), so I kept the plan as it was.`,
    modelUnusable: 'The model did not give a usable revised plan, so I kept the plan as it was.',
    whichStep: (reference: string, candidates: string) => `Which step do you mean by "${reference}"? It could be ${candidates}. Nothing was changed yet.`,
    noSuchStep: (reference: string, steps: string) => `No step of the plan matches "${reference}". The steps are ${steps}. Nothing was changed yet.`,
    sayWhich: 'Say it again naming the step by its number (for example "remove step 2").',
  },
  es: {
    planning: 'Planificando...',
    recalled: (n: number) => `Se recuperaron ${n} resultado(s) anteriores relacionados de la memoria del sistema`,
    memoryFailed: (what: string, message: string) => `La memoria del sistema no pudo ${what} (${message}); se continúa sin ella`,
    cancelled: 'El plan se canceló. No se ejecutó nada.',
    whatToChange: '¿Qué quieres cambiar del plan? Describe los cambios (por ejemplo "cambia el paso 2 por ...").',
    notPending: 'Ese plan ya no espera una decisión (se reemplazó, canceló o caducó). No se ejecutó nada.',
    expired: 'Ese plan caducó antes de que se decidiera, así que no se ejecutó nada. Envía tu petición de nuevo para un plan nuevo.',
    noPlan: 'No hay ningún plan esperando una decisión en esta conversación. No se ejecutó nada.',
    approvalsOff: (why: string) => `No se ejecutó nada: aquí no se puede aprobar un plan, porque ${why}`,
    unclear: 'De acuerdo, el plan sigue esperando. Responde "sí" para ejecutarlo, "no" para cancelarlo, o di qué cambiar.',
    revising: 'Revisando el plan...',
    cannotApply: (problem: string) => `No pude hacer ese cambio: ${problem}`,
    notUnderstood: (parts: string) => `No supe cómo cambiar el plan con: ${parts}.`,
    editHelp:
      'Dilo así: "cambia el paso 2 por ...", "quita el paso 3", "añade ... al final" (o "antes del paso 2", "después del paso 1"), "mueve el paso 4 antes del paso 1", "intercambia los pasos 1 y 2", "cambia el objetivo a ...".',
    modelLost: (steps: string) => `El plan revisado quitaba o reescribía pasos que no mencionaste (${steps}), así que mantuve el plan como estaba.`,
    modelUnusable: 'El modelo no dio un plan revisado utilizable, así que mantuve el plan como estaba.',
    whichStep: (reference: string, candidates: string) => `¿Qué paso quieres decir con "${reference}"? Puede ser ${candidates}. Todavía no se cambió nada.`,
    noSuchStep: (reference: string, steps: string) => `Ningún paso del plan coincide con "${reference}". Los pasos son ${steps}. Todavía no se cambió nada.`,
    sayWhich: 'Dilo de nuevo nombrando el paso por su número (por ejemplo "quita el paso 2").',
  },
} as const;

/**
 * Registers the planner of the spec's plan-confirmation table: the steps
 * `plan` and `execute_action`, and a task (default `route_to_task`) that
 *
 * - with a conversation and no pending plan: says "Planning...", runs `plan`,
 *   records the pending plan and asks for a decision (`input_required`,
 *   action type `plan_confirmation`) — nothing runs yet;
 * - without one (no `context_id`, or a one-request conversation): plans and runs at once;
 * - on approval: clears the pending plan, runs each action ("Step i/n: ...")
 *   and yields `{actions, outcomes}`;
 * - on rejection: clears it and says it is cancelled;
 * - on a change request without details: asks what to change;
 * - on changes: plans again from the original request plus the changes.
 *
 * @example
 * registerPlannerTask(core, { plan: async ({ query }) => generatePlan({ query, llmConfig }), executeAction: async ({ action }) => ({ outcome: `Done: ${action}` }) });
 */
export function registerPlannerTask(core: FrameworkCore, options: PlannerOptions): void {
  const maxPlanAgeMs = options.maxPlanAgeMs ?? DEFAULT_MAX_PLAN_AGE_MS;
  const stepStatus = options.stepStatus ?? defaultStepStatus;

  const memory = options.memory;
  core.step({ name: 'plan' }, async (args, context) => {
    const pastResults = Array.isArray(args.past_results) ? args.past_results.filter((r): r is string => typeof r === 'string') : [];
    const plan = await options.plan({ query: String(args.query ?? ''), contextId: optionalString(args.context_id), pastResults }, context);
    return PlanResultSchema.parse(plan);
  });
  core.step({ name: 'execute_action' }, async (args, context) => {
    const outcome = await options.executeAction(
      { action: String(args.action ?? ''), contextId: optionalString(args.context_id), index: Number(args.index ?? 1), total: Number(args.total ?? 1) },
      context,
    );
    return { outcome: outcome.outcome };
  });

  const editPlan = options.editPlan;
  if (editPlan) {
    core.step({ name: 'edit_plan' }, async (args, context) => {
      const actions = Array.isArray(args.actions) ? args.actions.map(String) : [];
      const edited = await editPlan(
        {
          objective: String(args.objective ?? ''),
          actions,
          request: String(args.request ?? ''),
          ...(typeof args.problem === 'string' ? { problem: args.problem } : {}),
          contextId: optionalString(args.context_id),
        },
        context,
      );
      const parsed = PlanResultSchema.shape.actions.safeParse(edited);
      if (!parsed.success)
        throw new InvalidModelOutputError({ message: `editPlan did not return a plan: ${parsed.error.message}`, output: JSON.stringify(edited) ?? '' });
      return { actions: parsed.data };
    });
  }

  core.task({ name: options.taskName ?? 'route_to_task', taskId: 'plan' }, async function* ({ query, contextId, oneShot, approvalsOff, agent }) {
    const { text } = parseTaskInput(query);
    const update = (id: string, patch: Readonly<Record<string, unknown>>) => agent.updateSessionContext(id, patch);
    const now = Date.now();

    /** Related past results from system memory (none without memory, or when it fails: then a status says why). */
    async function* recall(request: string, language: SummaryLanguage): AsyncGenerator<AgentResponse, string[]> {
      if (!memory) return [];
      let found: PastTaskResult[];
      try {
        found = await memory.recallPastResults({ request });
      } catch (error) {
        yield AgentResponse.status(TEXT[language].memoryFailed(language === 'es' ? 'buscar resultados anteriores' : 'recall past results', messageOf(error)));
        return [];
      }
      if (found.length > 0) yield AgentResponse.status(TEXT[language].recalled(found.length));
      return found.map((result) => result.text);
    }

    /** Runs a memory write; a failure becomes a status, not a failed task. */
    async function* remember(
      what: { en: string; es: string },
      language: SummaryLanguage,
      write: (memory: PlannerMemory) => Promise<void>,
    ): AsyncGenerator<AgentResponse> {
      if (!memory) return;
      try {
        await write(memory);
      } catch (error) {
        yield AgentResponse.status(TEXT[language].memoryFailed(what[language], messageOf(error)));
      }
    }

    async function* execute(plan: PlanResult, request: string, language: SummaryLanguage): AsyncGenerator<AgentResponse> {
      const outcomes: string[] = [];
      const total = plan.actions.length;
      for (const [i, action] of plan.actions.entries()) {
        const statuses = stepStatus(i + 1, total, action);
        for (const line of typeof statuses === 'string' ? [statuses] : statuses) yield AgentResponse.status(line);
        const done = await agent.executeStep('execute_action', { action, context_id: contextId, index: i + 1, total });
        outcomes.push(String(done.outcome));
      }
      yield* remember({ en: 'record the results', es: 'guardar los resultados' }, language, (m) =>
        m.rememberTaskResult({ request, actions: plan.actions, outcomes, ...(contextId ? { contextId } : {}) }),
      );
      yield AgentResponse.result({ actions: plan.actions, outcomes });
    }

    async function* propose(request: string, id: string, language: SummaryLanguage): AsyncGenerator<AgentResponse> {
      yield AgentResponse.status(TEXT[language].planning);
      const past = yield* recall(request, language);
      const plan = PlanResultSchema.parse(await agent.executeStep('plan', { query: request, context_id: id, past_results: past }));
      yield* offer(plan, request, id, language);
    }

    /** Records `plan` as the pending plan and asks for a decision; an edited plan keeps its lineage and shows its changes. */
    async function* offer(
      plan: PlanResult,
      request: string,
      id: string,
      language: SummaryLanguage,
      edit?: { from: PendingPlan; objective: string; changes: PlanChanges },
    ): AsyncGenerator<AgentResponse> {
      const objective = edit?.objective ?? request;
      const pending = await recordPendingPlan(update, id, plan, request, {
        maxAgeMs: maxPlanAgeMs,
        ...(edit && edit.objective !== request ? { objective: edit.objective } : {}),
        ...(edit ? { previousPlanId: edit.from.plan_id } : {}),
      });
      const display = toDisplayPlan(plan, objective, edit?.changes);
      const question = formatPlanSummary(display, { language });
      yield* remember({ en: 'record the pending plan', es: 'guardar el plan pendiente' }, language, (m) =>
        m.recordPendingClarification({ contextId: id, planId: pending.plan_id, request, question }),
      );
      const lineage = edit ? { previous_plan_id: edit.from.plan_id } : {};
      yield AgentResponse.inputRequired(question, { actionType: PLAN_CONFIRMATION, data: { plan_id: pending.plan_id, plan: display, ...lineage } });
    }

    /** Asks the person to say the change another way; the plan stays pending and the next reply is read as the change. */
    async function* askToRephrase(id: string, language: SummaryLanguage, why: string): AsyncGenerator<AgentResponse> {
      await markAwaitingModification(update, id);
      yield AgentResponse.inputRequired(`${why}\n${TEXT[language].editHelp}`);
    }

    /**
     * Applies a change to the pending plan: the edits the parser reads, at once and
     * without a model; what it cannot place goes to `edit_plan` when there is one.
     */
    async function* revise(pending: PendingPlan, request: string, id: string, planLanguage: SummaryLanguage): AsyncGenerator<AgentResponse> {
      // Questions about the change are asked in the language of the reply; the revised plan keeps the plan's.
      const language = replyLanguage(request, planLanguage);
      const t = TEXT[language];
      const parsed = parsePlanEdits(request, { steps: pending.actions.length, actions: pending.actions });
      const [question] = parsed.questions;
      if (question !== undefined) {
        // A step named by content that is several steps, or none: nothing is applied, not even the edits understood.
        await markAwaitingModification(update, id);
        yield AgentResponse.inputRequired(`${askWhich(question, pending.actions, language)}\n${t.sayWhich}`);
        return;
      }
      if (parsed.edits.length === 0 && parsed.unplaced.length === 0) {
        // Only politeness ("ok, please"): nothing to change yet.
        await markAwaitingModification(update, id);
        yield AgentResponse.inputRequired(t.whatToChange);
        return;
      }
      const applied = applyPlanEdits(pending.actions, parsed.edits);
      if (!applied.ok) {
        yield* askToRephrase(id, language, t.cannotApply(applied.problem));
        return;
      }
      let edited: EditedPlan = applied.plan;
      const objective = edited.objective ?? pending.objective ?? pending.original_query;
      if (parsed.unplaced.length > 0) {
        const unplaced = parsed.unplaced.join('; ');
        if (!editPlan) {
          yield* askToRephrase(id, language, t.notUnderstood(parsed.unplaced.map((part) => `"${part}"`).join(', ')));
          return;
        }
        yield AgentResponse.status(TEXT[planLanguage].revising);
        const byModel = yield* editWithModel(edited, objective, unplaced, id, language);
        if (byModel === null) return;
        edited = byModel;
      }
      // The plan the person saw is replaced once: a decision about it arriving at the same instant finds it gone.
      if (!(await decide(id))) {
        yield AgentResponse.text(t.notPending);
        return;
      }
      recordPlanDecision(pending, 'modified', Date.now());
      const plan: PlanResult = { actions: edited.actions, methodology: pending.methodology, methodology_rationale: pending.methodology_rationale };
      const changes: PlanChanges = { changes: edited.changes, removed: edited.removed, objectiveChanged: edited.objective !== undefined };
      yield* offer(plan, pending.original_query, id, planLanguage, { from: pending, objective, changes });
    }

    /** Runs `edit_plan` for what the parser could not place; null (after asking to rephrase) when the model would change steps nobody mentioned, twice. */
    async function* editWithModel(
      before: EditedPlan,
      objective: string,
      request: string,
      id: string,
      language: SummaryLanguage,
    ): AsyncGenerator<AgentResponse, EditedPlan | null> {
      let problem: string | undefined;
      let lost: string[] = [];
      for (let attempt = 0; attempt < 2; attempt += 1) {
        let actions: string[];
        try {
          const result = await agent.executeStep('edit_plan', {
            objective,
            actions: before.actions,
            request,
            context_id: id,
            ...(problem === undefined ? {} : { problem }),
          });
          actions = PlanResultSchema.shape.actions.parse(result.actions);
        } catch (error) {
          // An answer that is not a plan counts as a failed attempt, like one that loses steps: asked again, then the person.
          if (!(error instanceof InvalidModelOutputError)) throw error;
          lost = [];
          problem = `the answer was not a plan: ${error.message}`;
          continue;
        }
        lost = lostSteps(before.actions, actions, request);
        if (lost.length === 0) return mergeChanges(before, actions);
        problem = `it dropped, reworded or reordered steps the person did not mention: ${lost.map((step) => `"${step}"`).join(', ')}. Keep them word for word, in order.`;
      }
      if (lost.length === 0) {
        yield* askToRephrase(id, language, TEXT[language].modelUnusable);
        return null;
      }
      yield* askToRephrase(id, language, TEXT[language].modelLost(lost.map((step) => `"${step}"`).join(', ')));
      return null;
    }

    if (!contextId || oneShot) {
      const language = guessLanguage(text);
      yield AgentResponse.status(TEXT[language].planning);
      const past = yield* recall(text, language);
      const plan = PlanResultSchema.parse(await agent.executeStep('plan', { query: text, context_id: contextId, past_results: past }));
      yield* execute(plan, text, language);
      return;
    }

    const session = await agent.getSessionContext(contextId);
    // Approving, rejecting or editing takes the plan out of the session once: a second reply deciding it at the
    // same instant (another replica, a regenerated chat reply) finds it gone and runs nothing.
    async function decide(id: string): Promise<boolean> {
      const claimed = await claimPendingPlan((cid, key, value) => agent.claimSessionContextValue(cid, key, value), id, session[PENDING_PLAN_KEY]);
      if (claimed) await clearPendingPlan(update, id);
      return claimed;
    }
    const reply = classifyPlanConfirmationReply(text, session, { now, maxPlanAgeMs });
    if (reply === null) {
      // A decision about a plan that has expired applies to nothing: say so rather than plan "yes".
      const late = classifyPlanConfirmationReply(text, session, { now, maxPlanAgeMs: Number.POSITIVE_INFINITY });
      if (late !== null) {
        await clearPendingPlan(update, contextId);
        recordPlanDecision(late.pending_plan, 'expired', now);
        yield AgentResponse.text(TEXT[guessLanguage(`${late.original_query} ${text}`)].expired);
        return;
      }
      if (SENTINEL.test(text)) {
        yield AgentResponse.text(TEXT.en.noPlan);
        return;
      }
      yield* propose(text, contextId, guessLanguage(text));
      return;
    }
    const pending: PendingPlan = reply.pending_plan;
    const language = guessLanguage(`${pending.original_query} ${text}`);
    if (reply.referenced_plan_id !== undefined && reply.referenced_plan_id !== pending.plan_id) {
      yield AgentResponse.text(TEXT[language].notPending);
      return;
    }
    switch (reply.classification) {
      case 'plan_confirmed':
        // Where callers cannot be told apart, a "yes" could come from anyone: the plan stays waiting, unrun.
        if (approvalsOff !== undefined) {
          yield AgentResponse.text(TEXT[language].approvalsOff(approvalsOff));
          return;
        }
        if (!(await decide(contextId))) {
          yield AgentResponse.text(TEXT[language].notPending);
          return;
        }
        recordPlanDecision(pending, 'granted', now);
        yield* remember({ en: 'clear the pending plan', es: 'borrar el plan pendiente' }, language, (m) => m.clearPendingClarification({ contextId }));
        yield* execute(pending, pending.original_query, language);
        return;
      case 'plan_rejected':
        if (!(await decide(contextId))) {
          yield AgentResponse.text(TEXT[language].notPending);
          return;
        }
        recordPlanDecision(pending, 'denied', now);
        yield* remember({ en: 'clear the pending plan', es: 'borrar el plan pendiente' }, language, (m) => m.clearPendingClarification({ contextId }));
        yield AgentResponse.text(TEXT[language].cancelled);
        return;
      case 'plan_modify_requested':
        await markAwaitingModification(update, contextId);
        yield AgentResponse.inputRequired(TEXT[language].whatToChange);
        return;
      case 'plan_modify_feedback':
        yield* revise(pending, reply.feedback ?? text, contextId, language);
        return;
      case 'plan_unclear':
        yield AgentResponse.inputRequired(TEXT[language].unclear, {
          actionType: PLAN_CONFIRMATION,
          data: { plan_id: pending.plan_id, plan: displayOf(pending) },
        });
        return;
    }
  });
}

/** Text shown back to the person, without control or format characters. */
function visible(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}]+/gu, ' ').trim();
}

/** The question about a step named by content: its candidates, or every step when none matched. */
function askWhich(question: StepQuestion, actions: readonly string[], language: SummaryLanguage): string {
  const list = (steps: readonly number[]) => steps.map((step) => `${step}. "${visible(actions[step - 1] ?? '')}"`).join(', ');
  const reference = visible(question.reference);
  if (question.candidates.length > 1) return TEXT[language].whichStep(reference, list(question.candidates));
  return TEXT[language].noSuchStep(reference, list(actions.map((_, i) => i + 1)));
}

/** The pending plan as its card shows it. */
function displayOf(pending: PendingPlan) {
  return toDisplayPlan(pending, pending.objective ?? pending.original_query);
}

/**
 * The model's edit of `before` with the change marks carried over: a step kept
 * keeps its mark, a new text is `added`, and the steps of `before` it no
 * longer has join the removed ones.
 */
function mergeChanges(before: EditedPlan, actions: readonly string[]): EditedPlan {
  const unused = before.actions.map((action, i) => ({ key: action.trim().toLowerCase(), change: before.changes[i], action }));
  const changes: (StepChange | undefined)[] = actions.map((action) => {
    const at = unused.findIndex((old) => old.key === action.trim().toLowerCase());
    if (at === -1) return 'added';
    const [kept] = unused.splice(at, 1);
    return kept?.change;
  });
  return {
    actions: [...actions],
    changes,
    removed: [...before.removed, ...unused.filter((old) => old.change !== 'added').map((old) => old.action)],
    ...(before.objective === undefined ? {} : { objective: before.objective }),
  };
}

/** The spec's status before each action: "Step i/n: <action>". */
export function defaultStepStatus(index: number, total: number, action: string): string {
  return `Step ${index}/${total}: ${action}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
