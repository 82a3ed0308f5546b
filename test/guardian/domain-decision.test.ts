import { describe, expect, it } from 'vitest';
import { domainDecisionFrom } from '../../runtime/guardian/domain-decision.js';

const decide = (document: Record<string, unknown>) => domainDecisionFrom({ document, path: 'acme/trading' });

describe('domainDecisionFrom', () => {
  it('allows only an allow of exactly true with nothing denying', () => {
    expect(decide({ allow: true })).toEqual({ allow: true, deny: [], require_approval: false });
    expect(decide({ allow: 'true' }).allow).toBe(false);
    expect(decide({ allow: 1 }).allow).toBe(false);
    expect(decide({})).toEqual({ allow: false, deny: [], require_approval: false });
    expect(decide({ allow: true, deny: ['no'] })).toEqual({ allow: false, deny: ['no'], require_approval: false });
  });

  it('normalizes deny from a set of strings or a boolean rule, failing closed on anything else', () => {
    expect(decide({ deny: true }).deny).toEqual(['denied by policy']);
    expect(decide({ allow: true, deny: false }).allow).toBe(true);
    expect(decide({ deny: ['a', 7] }).deny).toEqual(['a', '7']);
    expect(decide({ allow: true, deny: 'nope' })).toEqual({ allow: false, deny: ['"acme.trading.deny" has an unexpected value'], require_approval: false });
  });

  it('needs approval only when require_approval is exactly true', () => {
    expect(decide({ require_approval: true }).require_approval).toBe(true);
    expect(decide({ require_approval: 'yes' }).require_approval).toBe(false);
  });
});
