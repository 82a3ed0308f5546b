package trading_test

import rego.v1

import data.trading

trade(amount, rate) := {
	"source_agent": {"name": "planner", "description": "plans trades"},
	"target_agent": {"name": "executor"},
	"action": "trade",
	"amount": amount,
	"context": {"context_id": "c1", "timestamp": "2026-01-01T00:00:00Z"},
	"metadata": {"requests_last_minute": rate},
}

test_small_trade_is_allowed if {
	trading.allow with input as trade(100, 1)
	not trading.require_approval with input as trade(100, 1)
	count(trading.deny) == 0 with input as trade(100, 1)
}

test_approval_band_starts_at_5000 if {
	trading.require_approval with input as trade(5000, 1)
	not trading.allow with input as trade(5000, 1)
	not trading.require_approval with input as trade(4999.99, 1)
}

test_approval_band_ends_below_50000 if {
	trading.require_approval with input as trade(49999, 1)
	not trading.require_approval with input as trade(50000, 1)
}

test_amount_at_maximum_is_denied if {
	"amount 50000 is at or above the limit of 50000" in trading.deny with input as trade(50000, 1)
	not trading.allow with input as trade(50000, 1)
}

test_rate_limit if {
	"rate limit exceeded: 101 requests in the last minute (at most 100)" in trading.deny with input as trade(10, 101)
	count(trading.deny) == 0 with input as trade(10, 100)
	not trading.allow with input as trade(10, 101)
}

test_only_trades_need_approval if {
	not trading.require_approval with input as object.union(trade(10000, 1), {"action": "quote"})
	trading.allow with input as object.union(trade(10000, 1), {"action": "quote"})
}

test_the_trader_examples_tool_call_is_a_trade if {
	trading.require_approval with input as object.union(trade(10000, 1), {"action": "place_trade"})
	trading.allow with input as object.union(trade(100, 1), {"action": "place_trade"})
	"amount 60000 is at or above the limit of 50000" in trading.deny with input as object.union(trade(60000, 1), {"action": "place_trade"})
}

test_a_trade_without_an_amount_is_denied if {
	no_amount := object.remove(trade(0, 1), {"amount"})
	"a trade needs an amount that is a number, and this one has none" in trading.deny with input as no_amount
	not trading.allow with input as no_amount
	"a trade needs an amount that is a number, and this one has none" in trading.deny with input as trade("10000", 1)
}

test_an_amount_beyond_a_double_is_denied if {
	"amount 1e400 is at or above the limit of 50000" in trading.deny with input as trade(1e400, 1)
	not trading.allow with input as trade(1e400, 1)
}

test_a_call_without_its_rate_is_denied if {
	no_rate := object.union(object.remove(trade(10, 1), {"metadata"}), {"metadata": {"requests_last_minute": "many"}})
	"the rate cannot be judged: metadata.requests_last_minute is missing or not a number" in trading.deny with input as no_rate
	not trading.allow with input as no_rate
	"the rate cannot be judged: metadata.requests_last_minute is missing or not a number" in trading.deny with input as object.remove(trade(10, 1), {"metadata"})
}
