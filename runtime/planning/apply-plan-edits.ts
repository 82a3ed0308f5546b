import type { StepChange } from './plan-records.js';
import type { ApplyResult, PlanEdit, StepPosition } from './plan-edit-types.js';

interface Slot {
  text: string;
  /** 1-based position in the plan the person saw; undefined for an added step. */
  origin?: number;
  change?: StepChange;
  removed?: boolean;
}

/**
 * Applies `edits` to `actions` (numbers refer to `actions` as given, whatever
 * the order of the edits). Fails, changing nothing, when an edit names a step
 * the plan does not have or one already removed, or when the plan would be left
 * empty or longer than 50 steps.
 *
 * @example
 * applyPlanEdits(['Pick a date', 'Book a room', 'Send invites'], [{ op: 'replace', step: 2, text: 'Book a big hall' }]);
 * // { ok: true, plan: { actions: ['Pick a date', 'Book a big hall', 'Send invites'], changes: [undefined, 'changed', undefined], removed: [] } }
 */
export function applyPlanEdits(actions: readonly string[], edits: readonly PlanEdit[]): ApplyResult {
  const slots: Slot[] = actions.map((text, i) => ({ text, origin: i + 1 }));
  const total = actions.length;
  let objective: string | undefined;
  const find = (step: number): Slot | string => {
    if (!Number.isInteger(step) || step < 1 || step > total) return `There is no step ${step}: the plan has ${total} step${total === 1 ? '' : 's'}.`;
    const slot = slots.find((s) => s.origin === step);
    if (slot === undefined || slot.removed) return `Step ${step} is removed by another change in the same reply.`;
    return slot;
  };
  const place = (slot: Slot, position: StepPosition): string | undefined => {
    if ('at' in position) {
      if (position.at === 'start') slots.unshift(slot);
      else slots.push(slot);
      return undefined;
    }
    if ('between' in position) {
      const [first, second] = position.between;
      const [a, b] = [find(first), find(second)];
      if (typeof a === 'string') return a;
      if (typeof b === 'string') return b;
      const [i, j] = [slots.indexOf(a), slots.indexOf(b)];
      // Steps removed in the same reply do not separate the two.
      const inBetween = slots.slice(Math.min(i, j) + 1, Math.max(i, j)).filter((s) => !s.removed && s !== slot);
      if (i === j || inBetween.length > 0) return `Steps ${first} and ${second} are not next to each other, so "between" does not say where.`;
      slots.splice(Math.max(i, j), 0, slot);
      return undefined;
    }
    const anchor = find('before' in position ? position.before : position.after);
    if (typeof anchor === 'string') return anchor;
    const index = slots.indexOf(anchor);
    slots.splice('before' in position ? index : index + 1, 0, slot);
    return undefined;
  };
  for (const edit of edits) {
    switch (edit.op) {
      case 'replace': {
        const slot = find(edit.step);
        if (typeof slot === 'string') return { ok: false, problem: slot };
        slot.text = styledLike(actions, edit.text);
        slot.change = 'changed';
        break;
      }
      case 'remove': {
        const slot = find(edit.step);
        if (typeof slot === 'string') return { ok: false, problem: slot };
        slot.removed = true;
        break;
      }
      case 'add': {
        const problem = place({ text: styledLike(actions, edit.text), change: 'added' }, edit.position);
        if (problem) return { ok: false, problem };
        break;
      }
      case 'move': {
        const slot = find(edit.step);
        if (typeof slot === 'string') return { ok: false, problem: slot };
        if (anchorsOf(edit.position).includes(edit.step)) {
          return { ok: false, problem: `Step ${edit.step} cannot move next to itself.` };
        }
        slots.splice(slots.indexOf(slot), 1);
        const problem = place(slot, edit.position);
        if (problem) return { ok: false, problem };
        slot.change ??= 'moved';
        break;
      }
      case 'swap': {
        const [a, b] = [find(edit.steps[0]), find(edit.steps[1])];
        if (typeof a === 'string') return { ok: false, problem: a };
        if (typeof b === 'string') return { ok: false, problem: b };
        if (a === b) return { ok: false, problem: `Swapping step ${edit.steps[0]} with itself changes nothing.` };
        const [i, j] = [slots.indexOf(a), slots.indexOf(b)];
        slots[i] = b;
        slots[j] = a;
        a.change ??= 'moved';
        b.change ??= 'moved';
        break;
      }
      case 'rename_objective':
        objective = edit.text;
        break;
    }
  }
  const kept = slots.filter((slot) => !slot.removed);
  if (kept.length === 0) return { ok: false, problem: 'These changes would leave the plan without any step.' };
  if (kept.length > 50) return { ok: false, problem: 'A plan has at most 50 steps.' };
  return {
    ok: true,
    plan: {
      actions: kept.map((slot) => slot.text),
      changes: kept.map((slot) => slot.change),
      removed: slots.filter((slot) => slot.removed).map((slot) => slot.text),
      ...(objective === undefined ? {} : { objective }),
    },
  };
}

/** `text` with a capital first letter when every action of the plan starts with one ("a review" among "Pick a date", "Book a room"). */
function styledLike(actions: readonly string[], text: string): string {
  const capitalised = actions.length > 0 && actions.every((action) => /^\p{Lu}/u.test(action));
  return capitalised && /^\p{Ll}/u.test(text) ? `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}` : text;
}

/** The steps a position is relative to. */
function anchorsOf(position: StepPosition): number[] {
  if ('at' in position) return [];
  if ('between' in position) return [...position.between];
  return ['before' in position ? position.before : position.after];
}
