"""Drives framework_core's model server with the newest agent clients.

Usage: python python_agent_clients.py <server base URL>   (for example http://127.0.0.1:41234)

OpenAI's `openai` client on the Responses API (text, stream, a function tool
with tool_choice="required", text.format json_schema), the OpenAI Agents SDK
with a plain model name (it calls /v1/responses) and a function tool with an
`Optional` argument, Anthropic's `anthropic` client on the Messages API
(create, stream, tool_use with tool_choice any), and a LangChain `@tool` with
an `Optional` argument through `langchain-openai`, all against the real
default model (smollm2). Prints one JSON object of what each call gave; each
check runs on its own, so a failure is reported as {"error": ...} under its
name without hiding the others. Generation is kept short.
"""

import json
import sys
import traceback
from typing import Optional

from anthropic import Anthropic
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from openai import AsyncOpenAI, OpenAI
from pydantic import BaseModel

from agents import Agent, ModelSettings, Runner, function_tool, set_default_openai_client, set_tracing_disabled

BASE = sys.argv[1].rstrip("/")
CHAT = "smollm2"
SHORT = 6
QUESTION = "What is the weather in Paris?"

openai_client = OpenAI(base_url=f"{BASE}/v1", api_key="unused", max_retries=0, timeout=120)
# The Anthropic SDK's base URL is the server's, without /v1.
anthropic_client = Anthropic(base_url=BASE, api_key="unused", max_retries=0, timeout=120)
results = {}

# What pydantic writes for `days: Optional[int] = None` (anyOf with null), as every client above sends it.
WEATHER_PARAMETERS = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
    },
    "required": ["city"],
}


def check(name):
    def run(fn):
        try:
            results[name] = fn()
        except Exception as error:  # reported to the test, which names the failing check
            results[name] = {"error": f"{type(error).__name__}: {error}", "trace": traceback.format_exc(limit=4)}
        return fn

    return run


@check("responses_text")
def _():
    response = openai_client.responses.create(model=CHAT, input="Say hello.", max_output_tokens=SHORT, temperature=0)
    return {
        "object": response.object,
        "status": response.status,
        "text": response.output_text,
        "output_tokens": response.usage.output_tokens,
        "input_tokens": response.usage.input_tokens,
    }


@check("responses_stream")
def _():
    types = []
    text = ""
    final = None
    with openai_client.responses.stream(model=CHAT, input="Say hello.", max_output_tokens=SHORT, temperature=0) as stream:
        for event in stream:
            types.append(event.type)
            if event.type == "response.output_text.delta":
                text += event.delta
        final = stream.get_final_response()
    return {"types": types, "text": text, "final_text": final.output_text, "output_tokens": final.usage.output_tokens}


@check("responses_tool_required")
def _():
    response = openai_client.responses.create(
        model=CHAT,
        input=QUESTION,
        tools=[{"type": "function", "name": "get_weather", "description": "Get the weather for a city", "parameters": WEATHER_PARAMETERS, "strict": False}],
        tool_choice="required",
        temperature=0,
    )
    calls = [item for item in response.output if item.type == "function_call"]
    return {"calls": [{"name": c.name, "arguments": json.loads(c.arguments), "call_id": c.call_id} for c in calls], "output_tokens": response.usage.output_tokens}


class City(BaseModel):
    city: str
    country: str


@check("responses_json_schema")
def _():
    response = openai_client.responses.parse(model=CHAT, input="Paris is a city in France. Give the city and its country.", text_format=City, temperature=0, max_output_tokens=60)
    return {"parsed": response.output_parsed.model_dump()}


@check("agents_sdk_tool")
def _():
    calls = []

    @function_tool
    def get_weather(city: str, days: Optional[int] = None) -> str:
        """Get the weather for a city.

        Args:
            city: The city.
            days: How many days ahead, if not today.
        """
        calls.append({"city": city, "days": days})
        return "18 degrees and sunny"

    set_tracing_disabled(True)
    set_default_openai_client(AsyncOpenAI(base_url=f"{BASE}/v1", api_key="unused", max_retries=0, timeout=120), use_for_tracing=False)
    # tool_choice required for the first turn; the SDK resets it to auto once the tool ran, so the next turn answers.
    agent = Agent(
        name="weather",
        instructions="Answer questions about the weather.",
        model=CHAT,
        tools=[get_weather],
        model_settings=ModelSettings(tool_choice="required", temperature=0, max_tokens=30),
    )
    result = Runner.run_sync(agent, QUESTION, max_turns=3)
    return {"calls": calls, "final_output": result.final_output, "schema": get_weather.params_json_schema}


@check("anthropic_create")
def _():
    message = anthropic_client.messages.create(
        model=CHAT, max_tokens=SHORT, system="Be brief.", messages=[{"role": "user", "content": "Say hello."}], extra_body={"temperature": 0}
    )
    return {
        "type": message.type,
        "role": message.role,
        "content_types": [block.type for block in message.content],
        "text": message.content[0].text,
        "stop_reason": message.stop_reason,
        "output_tokens": message.usage.output_tokens,
        "input_tokens": message.usage.input_tokens,
    }


@check("anthropic_stream")
def _():
    types = []
    text = ""
    with anthropic_client.messages.stream(model=CHAT, max_tokens=SHORT, messages=[{"role": "user", "content": "Say hello."}], extra_body={"temperature": 0}) as stream:
        for event in stream:
            types.append(event.type)
            if event.type == "text":
                text += event.text
        final = stream.get_final_message()
    return {"types": types, "text": text, "final_text": final.content[0].text, "output_tokens": final.usage.output_tokens}


@check("anthropic_tool_any")
def _():
    message = anthropic_client.messages.create(
        model=CHAT,
        max_tokens=60,
        messages=[{"role": "user", "content": QUESTION}],
        tools=[{"name": "get_weather", "description": "Get the weather for a city", "input_schema": WEATHER_PARAMETERS}],
        tool_choice={"type": "any"},
        extra_body={"temperature": 0},
    )
    uses = [block for block in message.content if block.type == "tool_use"]
    return {"stop_reason": message.stop_reason, "uses": [{"name": u.name, "input": u.input, "id": u.id} for u in uses], "output_tokens": message.usage.output_tokens}


@check("langchain_tool_optional")
def _():
    @tool
    def get_weather(city: str, days: Optional[int] = None) -> str:
        """Get the weather for a city, today or some days ahead."""
        return f"18 degrees in {city}"

    model = ChatOpenAI(model=CHAT, base_url=f"{BASE}/v1", api_key="unused", temperature=0, max_retries=0, timeout=120)
    reply = model.bind_tools([get_weather], tool_choice="required").invoke(QUESTION)
    calls = reply.tool_calls
    return {
        "calls": [{"name": c["name"], "args": c["args"]} for c in calls],
        "ran": get_weather.invoke(calls[0]["args"]) if calls else None,
        "schema_has_anyof": "anyOf" in json.dumps(get_weather.tool_call_schema.model_json_schema()),
    }


print(json.dumps(results))
