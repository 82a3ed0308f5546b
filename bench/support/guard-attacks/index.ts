/** Every class of guard attack `npm run security` tries (issue 33), in the README's order. */
import type { GuardAttackClass } from './guard-attack.js';
import { memoryScopes } from './memory-scopes.js';

export const GUARD_ATTACKS: readonly GuardAttackClass[] = [memoryScopes];
