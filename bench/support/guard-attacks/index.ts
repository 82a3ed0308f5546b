/** Every class of guard attack `npm run security` tries (issue 33), in the order of docs/security.md. */
import { bundlesAttack } from './bundles.js';
import type { GuardAttackClass } from './guard-attack.js';
import { identityAttacks } from './identity.js';
import { memoryScopes } from './memory-scopes.js';
import { numbersAttacks } from './numbers.js';
import { policyBudgetAttacks } from './policy-budget.js';
import { policyFilesAttacks } from './policy-files.js';
import { pushConfigsAttack } from './push-configs.js';
import { refusalsAttacks } from './refusals.js';
import { terminalAttacks } from './terminal.js';
import { timeAttacks } from './time.js';

export const GUARD_ATTACKS: readonly GuardAttackClass[] = [
  numbersAttacks,
  timeAttacks,
  identityAttacks,
  bundlesAttack,
  policyFilesAttacks,
  policyBudgetAttacks,
  memoryScopes,
  terminalAttacks,
  pushConfigsAttack,
  refusalsAttacks,
];
