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

deny contains msg if {
	input.amount >= max_amount
	msg := sprintf("amount %v exceeds the maximum of %v", [input.amount, max_amount])
}

deny contains msg if {
	input.metadata.requests_last_minute > max_requests_per_minute
	msg := sprintf("rate limit exceeded: %v requests in the last minute (at most %v)", [input.metadata.requests_last_minute, max_requests_per_minute])
}

# The actions that are trades: the spec's "trade", and the trader example's
# tool call "place_trade" (action = the tool's name).
trade_actions := {"trade", "place_trade"}

# Trades from 5000 up to below 50000 need a person's approval.
require_approval if {
	input.action in trade_actions
	input.amount >= approval_threshold
	input.amount < max_amount
}
