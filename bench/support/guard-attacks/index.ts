/** Every class of guard attack `npm run security` tries (issue 33), in the README's order. */
import type { GuardAttackClass } from './guard-attack.js';
import { policyBudgetAttacks } from './policy-budget.js';
import { policyFilesAttacks } from './policy-files.js';

export const GUARD_ATTACKS: readonly GuardAttackClass[] = [policyFilesAttacks, policyBudgetAttacks];
