import { describe, expect, it } from 'vitest';
import { lostSteps } from '../../runtime/planning/edit-plan.js';
import { applyPlanEdits, parsePlanEdits, referencedSteps } from '../../runtime/planning/plan-edits.js';
import { seededRandom } from './random-classifier-input.js';

const PLAN = ['Pick a date', 'Book a room', 'Send the invitations', 'Order food'];

/** Each reply and the plan it must give (from PLAN). */
const EDITS: ReadonlyArray<readonly [string, string[]]> = [
  // change / replace
  ['change step 2 to book a big hall', ['Pick a date', 'Book a big hall', 'Send the invitations', 'Order food']],
  ['Change step 2 to book a big hall, please.', ['Pick a date', 'Book a big hall', 'Send the invitations', 'Order food']],
  ['replace step 1 with "choose two dates"', ['Choose two dates', 'Book a room', 'Send the invitations', 'Order food']],
  ['step 4 should be order pizza', ['Pick a date', 'Book a room', 'Send the invitations', 'Order pizza']],
  ['instead of step 3, call everyone', ['Pick a date', 'Book a room', 'Call everyone', 'Order food']],
  ['change the second step to rent a hall', ['Pick a date', 'Rent a hall', 'Send the invitations', 'Order food']],
  ['update the last step to: order sandwiches', ['Pick a date', 'Book a room', 'Send the invitations', 'Order sandwiches']],
  ['cambia el paso 2 por reservar un salón grande', ['Pick a date', 'Reservar un salón grande', 'Send the invitations', 'Order food']],
  ['Reemplaza el último paso por una cena', ['Pick a date', 'Book a room', 'Send the invitations', 'Una cena']],
  ['el paso dos debe ser reservar el salón', ['Pick a date', 'Reservar el salón', 'Send the invitations', 'Order food']],
  ['en lugar del paso 3, manda un correo', ['Pick a date', 'Book a room', 'Manda un correo', 'Order food']],
  // remove / skip
  ['remove step 3', ['Pick a date', 'Book a room', 'Order food']],
  ['skip step two', ['Pick a date', 'Send the invitations', 'Order food']],
  ['get rid of the first step', ['Book a room', 'Send the invitations', 'Order food']],
  ['drop the last one', ['Pick a date', 'Book a room', 'Send the invitations']],
  ['no step 3', ['Pick a date', 'Book a room', 'Order food']],
  ['quita el paso 3', ['Pick a date', 'Book a room', 'Order food']],
  ['omite el segundo paso', ['Pick a date', 'Send the invitations', 'Order food']],
  ['Sáltate el paso 1', ['Book a room', 'Send the invitations', 'Order food']],
  ['elimina la última tarea', ['Pick a date', 'Book a room', 'Send the invitations']],
  // add
  ['add a review at the end', ['Pick a date', 'Book a room', 'Send the invitations', 'Order food', 'A review']],
  ['add a budget check before step 2', ['Pick a date', 'A budget check', 'Book a room', 'Send the invitations', 'Order food']],
  ['add a step to confirm the date after step 1', ['Pick a date', 'Confirm the date', 'Book a room', 'Send the invitations', 'Order food']],
  ['add at the start: check the calendar', ['Check the calendar', 'Pick a date', 'Book a room', 'Send the invitations', 'Order food']],
  ['add coffee and snacks at the end', ['Pick a date', 'Book a room', 'Send the invitations', 'Order food', 'Coffee and snacks']],
  ['also rent a car', ['Pick a date', 'Book a room', 'Send the invitations', 'Order food', 'Rent a car']],
  ['add X between step 1 and step 2', ['Pick a date', 'X', 'Book a room', 'Send the invitations', 'Order food']],
  ['añade una revisión al final', ['Pick a date', 'Book a room', 'Send the invitations', 'Order food', 'Una revisión']],
  ['agrega una revisión antes del paso 2', ['Pick a date', 'Una revisión', 'Book a room', 'Send the invitations', 'Order food']],
  ['añade al principio revisar el calendario', ['Revisar el calendario', 'Pick a date', 'Book a room', 'Send the invitations', 'Order food']],
  ['inserta confirmar la fecha después del paso 1', ['Pick a date', 'Confirmar la fecha', 'Book a room', 'Send the invitations', 'Order food']],
  ['también alquila un coche', ['Pick a date', 'Book a room', 'Send the invitations', 'Order food', 'Alquila un coche']],
  // move
  ['move step 4 before step 1', ['Order food', 'Pick a date', 'Book a room', 'Send the invitations']],
  ['move the last step to the start', ['Order food', 'Pick a date', 'Book a room', 'Send the invitations']],
  ['move step 1 after step 3', ['Book a room', 'Send the invitations', 'Pick a date', 'Order food']],
  ['put step 1 last', ['Book a room', 'Send the invitations', 'Order food', 'Pick a date']],
  ['do step 3 first', ['Send the invitations', 'Pick a date', 'Book a room', 'Order food']],
  ['mueve el paso 4 antes del paso 1', ['Order food', 'Pick a date', 'Book a room', 'Send the invitations']],
  ['mueve el paso 1 al final', ['Book a room', 'Send the invitations', 'Order food', 'Pick a date']],
  ['pon el paso 2 después del paso 3', ['Pick a date', 'Send the invitations', 'Book a room', 'Order food']],
  // swap
  ['swap steps 1 and 2', ['Book a room', 'Pick a date', 'Send the invitations', 'Order food']],
  ['switch step 3 and step 4', ['Pick a date', 'Book a room', 'Order food', 'Send the invitations']],
  ['intercambia los pasos 1 y 2', ['Book a room', 'Pick a date', 'Send the invitations', 'Order food']],
  ['intercambia el paso 2 con el paso 4', ['Pick a date', 'Order food', 'Send the invitations', 'Book a room']],
  ['cambia el orden de los pasos 3 y 4', ['Pick a date', 'Book a room', 'Order food', 'Send the invitations']],
  // several in one reply: numbers name the plan as it was shown
  ['remove step 3 and add a review at the end', ['Pick a date', 'Book a room', 'Order food', 'A review']],
  ['remove step 1 and change step 2 to book a hall', ['Book a hall', 'Send the invitations', 'Order food']],
  ['drop step 1, then add a kickoff call at the start', ['A kickoff call', 'Book a room', 'Send the invitations', 'Order food']],
  ['yes but remove step 4; swap steps 1 and 2', ['Book a room', 'Pick a date', 'Send the invitations']],
  ['quita el paso 3 y añade una revisión al final', ['Pick a date', 'Book a room', 'Order food', 'Una revisión']],
  ['sí, pero quita el paso 1 y luego mueve el paso 4 al principio', ['Order food', 'Book a room', 'Send the invitations']],
];

describe('parsePlanEdits and applyPlanEdits', () => {
  it.each(EDITS)('%s', (reply, expected) => {
    const { edits, unplaced } = parsePlanEdits(reply, { steps: PLAN.length });
    expect(unplaced).toEqual([]);
    const result = applyPlanEdits(PLAN, edits);
    expect(result.ok ? result.plan.actions : result.problem).toEqual(expected);
  });

  it('renames the objective, in both languages', () => {
    for (const reply of ['rename the objective to Summer offsite', 'The objective should be Summer offsite', 'cambia el objetivo a Summer offsite']) {
      const { edits } = parsePlanEdits(reply, { steps: 4 });
      expect(edits).toEqual([{ op: 'rename_objective', text: 'Summer offsite' }]);
      const result = applyPlanEdits(PLAN, edits);
      expect(result.ok && result.plan.objective).toBe('Summer offsite');
    }
  });

  it('marks what changed and lists what was removed', () => {
    const { edits } = parsePlanEdits('change step 2 to book a hall, remove step 3, add a review at the end and swap steps 1 and 4', { steps: 4 });
    const result = applyPlanEdits(PLAN, edits);
    expect(result).toEqual({
      ok: true,
      plan: {
        actions: ['Order food', 'Book a hall', 'Pick a date', 'A review'],
        changes: ['moved', 'changed', 'moved', 'added'],
        removed: ['Send the invitations'],
      },
    });
  });

  it('keeps the cut text as written: casing, accents, inner punctuation', () => {
    expect(parsePlanEdits('Cambia el PASO 2 por "Reservar el Salón Ñandú, ya"', { steps: 2 }).edits).toEqual([
      { op: 'replace', step: 2, text: 'Reservar el Salón Ñandú, ya' },
    ]);
  });

  it('refuses, changing nothing, a step the plan does not have, one removed twice, or a plan left empty', () => {
    expect(applyPlanEdits(PLAN, parsePlanEdits('remove step 7', { steps: 4 }).edits)).toEqual({
      ok: false,
      problem: 'There is no step 7: the plan has 4 steps.',
    });
    expect(applyPlanEdits(PLAN, parsePlanEdits('remove step 2 and change step 2 to x', { steps: 4 }).edits)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('Step 2 is removed'),
    });
    expect(applyPlanEdits(['Only'], parsePlanEdits('remove step 1', { steps: 1 }).edits)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('without any step'),
    });
    expect(applyPlanEdits(PLAN, parsePlanEdits('swap steps 2 and 2', { steps: 4 }).edits)).toMatchObject({ ok: false });
    expect(applyPlanEdits(PLAN, parsePlanEdits('move step 2 before step 2', { steps: 4 }).edits)).toMatchObject({ ok: false });
  });

  it('returns what it cannot place as written, and the edits it can', () => {
    expect(parsePlanEdits('make it cheaper', { steps: 4 })).toEqual({ edits: [], unplaced: ['make it cheaper'], questions: [] });
    expect(parsePlanEdits('remove step 2 and make the food vegan', { steps: 4 })).toEqual({
      edits: [{ op: 'remove', step: 2 }],
      unplaced: ['make the food vegan'],
      questions: [],
    });
    expect(parsePlanEdits('hazlo más barato', { steps: 4 }).unplaced).toEqual(['hazlo más barato']);
  });

  it('leaves a clause over 160 characters and a reply over 1,000 unread (the rules backtrack), never a partial edit', () => {
    const clause = `remove ${'the car before the hotel between '.repeat(6)}`;
    expect(parsePlanEdits(clause, { steps: 4, actions: PLAN })).toEqual({ edits: [], unplaced: [clause.trim()], questions: [] });
    const reply = 'remove step 2; '.repeat(100);
    expect(parsePlanEdits(reply, { steps: 4, actions: PLAN })).toEqual({ edits: [], unplaced: [reply.trim()], questions: [] });
    expect(parsePlanEdits('remove step 2; '.repeat(10), { steps: 4, actions: PLAN }).edits).toHaveLength(10);
  });

  it('never throws and is deterministic on random text', () => {
    const random = seededRandom(7);
    const words = ['step', 'paso', '2', 'add', 'remove', 'and', 'y', 'to', 'por', 'the', 'last', 'swap', 'move', 'before', ',', ';', 'é', '🙂', 'x'];
    for (let i = 0; i < 2000; i += 1) {
      const text = Array.from({ length: Math.floor(random() * 12) }, () => words[Math.floor(random() * words.length)]).join(' ');
      const first = parsePlanEdits(text, { steps: 4 });
      expect(parsePlanEdits(text, { steps: 4 })).toEqual(first);
      applyPlanEdits(PLAN, first.edits);
    }
  });
});

describe('referencedSteps and lostSteps', () => {
  it('finds the steps a request names', () => {
    expect([...referencedSteps('make step 2 cheaper and drop the last one', 4)].sort()).toEqual([2, 4]);
    expect([...referencedSteps('el tercer paso y la tarea 1', 4)].sort()).toEqual([1, 3]);
    expect([...referencedSteps('step 9', 4)]).toEqual([]);
  });

  it('reports steps nobody mentioned that an edit dropped, reworded or reordered', () => {
    expect(lostSteps(PLAN, ['Pick a date', 'Book a cheap room', 'Send the invitations', 'Order food'], 'make the room cheaper')).toEqual([]);
    expect(lostSteps(PLAN, ['Pick a date', 'Book a cheap room', 'Order food'], 'make the room cheaper')).toEqual(['Send the invitations']);
    expect(lostSteps(PLAN, ['Pick a day', 'Book a cheap room', 'Send the invitations', 'Order food'], 'make the room cheaper')).toEqual(['Pick a date']);
    expect(lostSteps(PLAN, ['Order food', 'Pick a date', 'Book a cheap room', 'Send the invitations'], 'make the room cheaper')).toEqual(['Order food']);
    expect(lostSteps(PLAN, ['Pick a date', 'Book a room', 'Email the invitations', 'Order food'], 'step 3 by email')).toEqual([]);
  });
});
