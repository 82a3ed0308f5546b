import type { StepChange } from './plan-records.js';

/** Where an added or moved step goes; `between` names two steps next to each other in the plan as seen. */
export type StepPosition = { at: 'start' } | { at: 'end' } | { before: number } | { after: number } | { between: readonly [number, number] };

/** One edit of a plan; every step number refers to the plan as the person saw it. */
export type PlanEdit =
  | { op: 'replace'; step: number; text: string }
  | { op: 'remove'; step: number }
  | { op: 'add'; text: string; position: StepPosition }
  | { op: 'move'; step: number; position: StepPosition }
  | { op: 'swap'; steps: readonly [number, number] }
  | { op: 'rename_objective'; text: string };

/** A step named by its content that matches several steps of the plan, or none (`candidates` empty): the person must say which. */
export interface StepQuestion {
  /** The words that named the step, as written. */
  reference: string;
  /** The steps (1-based) it could be; empty when none matches. */
  candidates: number[];
}

export interface ParsedPlanEdits {
  /** The edits understood, in the order written. */
  edits: PlanEdit[];
  /** Parts of the reply that are not an edit this parser knows, as written. */
  unplaced: string[];
  /** Steps named by content that the parser could not pin down: nothing may be applied until the person says which. */
  questions: StepQuestion[];
}

export interface EditedPlan {
  actions: string[];
  /** Per action of `actions`: how it changed, or undefined when it is as before. */
  changes: (StepChange | undefined)[];
  /** Actions taken out, as they were. */
  removed: string[];
  /** The new objective, when an edit renamed it. */
  objective?: string;
}

export type ApplyResult = { ok: true; plan: EditedPlan } | { ok: false; problem: string };
