# Which agent may call which, checked by the Guardian before every A2A call.
# Query: POST /v1/data/a2a_access/allow with {"input": <A2A validation input>}.
package a2a_access

import rego.v1

default allow := false

# The orchestrator may call any agent.
allow if input.source_agent.name == "orchestrator"

# The planner may call the orchestrator.
allow if {
	input.source_agent.name == "planner"
	input.target_agent.name == "orchestrator"
}

# The tutorial pair (agent_cards/planner.json, agent_cards/executor.json):
# the planner delegates each action of a plan to the executor. Not in the
# spec's example table; remove it if you do not run the tutorial agents.
allow if {
	input.source_agent.name == "planner"
	input.target_agent.name == "executor"
}

# Any agent may call the Semantic Layer.
allow if input.target_agent.name == "semantic-layer"

# Reasons a call is refused outright, whatever else allows it.
deny contains "untrusted agents may not call the database" if {
	input.source_agent.name == "untrusted"
	input.target_agent.name == "database"
}
