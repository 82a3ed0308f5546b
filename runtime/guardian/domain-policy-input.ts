import { z } from 'zod';

const text = (what = 'must be a string') => z.string({ error: what });

/**
 * The spec's "Policy input sent by Guardian for domain policies". Only the
 * named fields are checked; any other key (at any level) is passed through
 * to the policy unchanged.
 */
export const DomainPolicyInputSchema = z.looseObject({
  source_agent: z.looseObject(
    {
      name: text().min(1, 'must not be empty'),
      description: text().optional(),
    },
    { error: 'must be an object such as {"name": "planner"}' },
  ),
  target_agent: z.looseObject({ name: text().min(1, 'must not be empty') }, { error: 'must be an object such as {"name": "executor"}' }),
  action: text(),
  amount: z.number({ error: 'must be a finite number' }).optional(),
  context: z
    .looseObject(
      {
        context_id: text().optional(),
        timestamp: z.iso.datetime({ offset: true, error: 'must be an ISO-8601 timestamp such as 2026-01-01T00:00:00Z' }).optional(),
      },
      { error: 'must be an object' },
    )
    .optional(),
  metadata: z.looseObject({}, { error: 'must be an object' }).optional(),
});
export type DomainPolicyInput = z.infer<typeof DomainPolicyInputSchema>;
