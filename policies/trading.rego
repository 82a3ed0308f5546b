# Example domain policy (the spec's trading example), asked by the Guardian
# with the domain input: source_agent, target_agent, action, amount, context,
# metadata.requests_last_minute. The constants are example values.
package trading

import rego.v1

max_amount := 50000

approval_threshold := 5000

max_requests_per_minute := 100

default allow := false

default require_approval := false

# Allowed outright: nothing denies it and it needs no approval.
allow if {
	count(deny) == 0
	not require_approval
}

# Amounts must stay below max_amount: max_amount itself is refused.
deny contains msg if {
	input.amount >= max_amount
	msg := sprintf("amount %v is at or above the limit of %v", [input.amount, max_amount])
}

deny contains msg if {
	input.metadata.requests_last_minute > max_requests_per_minute
	msg := sprintf("rate limit exceeded: %v requests in the last minute (at most %v)", [input.metadata.requests_last_minute, max_requests_per_minute])
}

# What the policy cannot judge, it denies: a trade with no amount (or one
# that is not a number), and a call that does not say how many came in the
# last minute. (A helper rule, not `not is_number(input.amount)`: with the key
# absent that call is undefined and its negation never holds, in OPA too.)
deny contains "a trade needs an amount that is a number, and this one has none" if {
	input.action in trade_actions
	not amount_is_number
}

deny contains "the rate cannot be judged: metadata.requests_last_minute is missing or not a number" if {
	not rate_is_number
}

amount_is_number if is_number(input.amount)

rate_is_number if is_number(input.metadata.requests_last_minute)

# The actions that are trades: the spec's "trade", and the trader example's
# tool call "place_trade" (action = the tool's name).
trade_actions := {"trade", "place_trade"}

# Trades from 5000 up to below 50000 need a person's approval.
require_approval if {
	input.action in trade_actions
	input.amount >= approval_threshold
	input.amount < max_amount
}
