# Which agent of the swarm may call which, checked by the Guardian before every A2A call.
# Query: POST /v1/data/a2a_access/allow with {"input": <A2A validation input>}.
package a2a_access

import rego.v1

default allow := false

# The orchestrator may call any agent.
allow if input.source_agent.name == "orchestrator"

# The planner delegates each action of a plan to the executor.
allow if {
	input.source_agent.name == "planner"
	input.target_agent.name == "executor"
}
