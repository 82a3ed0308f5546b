/** Every class of guard attack `npm run security` tries (issue 33), in the README's order. */
import { bundlesAttack } from './bundles.js';
import type { GuardAttackClass } from './guard-attack.js';
import { pushConfigsAttack } from './push-configs.js';

export const GUARD_ATTACKS: readonly GuardAttackClass[] = [bundlesAttack, pushConfigsAttack];
