/** Every class of guard attack `npm run security` tries (issue 33), in the README's order. */
import type { GuardAttackClass } from './guard-attack.js';
import { terminalAttacks } from './terminal.js';

export const GUARD_ATTACKS: readonly GuardAttackClass[] = [terminalAttacks];
