package a2a_access_test

import rego.v1

import data.a2a_access

call(source, target) := {
	"source_agent": {"name": source, "description": "", "url": "http://127.0.0.1:8002/"},
	"target_agent": {"name": target, "description": "", "url": "http://127.0.0.1:8003/"},
	"communication": {"timestamp": "2026-01-01T00:00:00Z", "message_preview": "hi", "message_length": 2},
	"validation_mode": "strict",
}

test_orchestrator_may_call_anyone if {
	a2a_access.allow with input as call("orchestrator", "planner")
	a2a_access.allow with input as call("orchestrator", "executor")
}

test_planner_may_call_executor if {
	a2a_access.allow with input as call("planner", "executor")
}

test_everything_else_is_refused if {
	not a2a_access.allow with input as call("planner", "orchestrator")
	not a2a_access.allow with input as call("executor", "planner")
	not a2a_access.allow with input as call("executor", "orchestrator")
	not a2a_access.allow with input as {}
}
