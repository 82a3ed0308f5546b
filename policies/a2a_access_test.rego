package a2a_access_test

import rego.v1

import data.a2a_access

call(source, target) := {
	"source_agent": {"name": source, "description": "", "url": "http://127.0.0.1:8100"},
	"target_agent": {"name": target, "description": "", "url": "http://127.0.0.1:8101"},
	"communication": {"timestamp": "2026-01-01T00:00:00Z", "message_preview": "hi", "message_length": 2},
	"validation_mode": "strict",
}

test_orchestrator_may_call_anyone if {
	a2a_access.allow with input as call("orchestrator", "executor")
	a2a_access.allow with input as call("orchestrator", "planner")
}

test_planner_may_call_orchestrator if {
	a2a_access.allow with input as call("planner", "orchestrator")
}

test_planner_may_not_call_others if {
	not a2a_access.allow with input as call("planner", "database")
	not a2a_access.allow with input as call("planner", "semantic-layer-admin")
}

test_tutorial_planner_may_call_executor if {
	a2a_access.allow with input as call("planner", "executor")
	not a2a_access.allow with input as call("executor", "planner")
}

test_anyone_may_call_semantic_layer if {
	a2a_access.allow with input as call("executor", "semantic-layer")
	a2a_access.allow with input as call("untrusted", "semantic-layer")
}

test_untrusted_may_not_call_database if {
	not a2a_access.allow with input as call("untrusted", "database")
	"untrusted agents may not call the database" in a2a_access.deny with input as call("untrusted", "database")
}

test_no_deny_reason_for_ordinary_calls if {
	count(a2a_access.deny) == 0 with input as call("planner", "orchestrator")
}

test_default_is_deny if {
	not a2a_access.allow with input as call("executor", "planner")
	not a2a_access.allow with input as {}
}
