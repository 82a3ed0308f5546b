"""Drives framework_core's model server with the official Python clients.

Usage: python python_clients.py <server base URL>   (for example http://127.0.0.1:41234)

Exercises Ollama's `ollama` client on /api (chat, stream, embed, list),
OpenAI's `openai` client on /v1 (chat, stream, response_format
json_schema parsed into a pydantic model, embeddings as float and as the
client's default base64, models list and retrieve), LangChain's
`langchain-ollama` (ChatOllama invoke and stream, OllamaEmbeddings) on /api
and `langchain-openai` (ChatOpenAI invoke and stream) on /v1, against the
real models (smollm2, all-minilm). Prints one JSON object of what each call
gave; each check runs on its own, so one failure is reported as
{"error": ...} under its name without hiding the others. Generation is kept
short (a few tokens) to keep the test quick on a busy machine.
"""

import json
import sys
import traceback

from langchain_ollama import ChatOllama, OllamaEmbeddings
from langchain_openai import ChatOpenAI
from ollama import Client as OllamaClient
from openai import OpenAI
from pydantic import BaseModel

BASE = sys.argv[1].rstrip("/")
CHAT = "smollm2"
EMBED = "all-minilm"
SHORT = 8

openai_client = OpenAI(base_url=f"{BASE}/v1", api_key="unused", max_retries=0, timeout=120)
results = {}


def check(name):
    def run(fn):
        try:
            results[name] = fn()
        except Exception as error:  # reported to the test, which names the failing check
            results[name] = {"error": f"{type(error).__name__}: {error}", "trace": traceback.format_exc(limit=3)}
        return fn

    return run


@check("openai_chat")
def _():
    reply = openai_client.chat.completions.create(
        model=CHAT, messages=[{"role": "user", "content": "Say hello."}], max_tokens=SHORT, temperature=0, seed=1
    )
    choice = reply.choices[0]
    return {
        "object": reply.object,
        "content": choice.message.content,
        "role": choice.message.role,
        "finish_reason": choice.finish_reason,
        "completion_tokens": reply.usage.completion_tokens,
        "prompt_tokens": reply.usage.prompt_tokens,
    }


@check("openai_stream")
def _():
    stream = openai_client.chat.completions.create(
        model=CHAT,
        messages=[{"role": "user", "content": "Count to five."}],
        max_tokens=SHORT,
        temperature=0,
        stream=True,
        stream_options={"include_usage": True},
    )
    pieces, finish, usage = [], None, None
    for chunk in stream:
        if chunk.choices:
            pieces.append(chunk.choices[0].delta.content or "")
            finish = chunk.choices[0].finish_reason or finish
        if chunk.usage:
            usage = chunk.usage.completion_tokens
    return {"chunks": len(pieces), "text": "".join(pieces), "finish_reason": finish, "completion_tokens": usage}


class City(BaseModel):
    city: str
    country: str


@check("openai_json_schema")
def _():
    reply = openai_client.chat.completions.parse(
        model=CHAT,
        messages=[{"role": "user", "content": "Name the capital of France and its country as JSON."}],
        response_format=City,
        max_tokens=60,
        temperature=0,
    )
    parsed = reply.choices[0].message.parsed
    return {"parsed": parsed.model_dump() if parsed else None, "content": reply.choices[0].message.content}


@check("openai_embeddings")
def _():
    texts = ["A man is eating food.", "A man is eating a piece of bread."]
    as_float = openai_client.embeddings.create(model=EMBED, input=texts, encoding_format="float")
    # Without encoding_format the client asks for base64 and decodes it itself.
    by_default = openai_client.embeddings.create(model=EMBED, input=texts)
    a, b = (d.embedding for d in as_float.data)
    return {
        "count": len(as_float.data),
        "dimensions": len(a),
        "cosine": sum(x * y for x, y in zip(a, b)),
        "default_equals_float": all(
            len(x.embedding) == len(y.embedding) and max(abs(p - q) for p, q in zip(x.embedding, y.embedding)) < 1e-6
            for x, y in zip(as_float.data, by_default.data)
        ),
        "prompt_tokens": as_float.usage.prompt_tokens,
    }


@check("openai_models")
def _():
    listed = [m.id for m in openai_client.models.list()]
    one = openai_client.models.retrieve(f"{CHAT}:latest")
    return {"ids": listed, "retrieved": one.id, "owned_by": one.owned_by, "object": one.object}


@check("openai_unknown_model")
def _():
    try:
        openai_client.chat.completions.create(model="no-such-model", messages=[{"role": "user", "content": "hi"}], max_tokens=1)
    except Exception as error:
        return {"type": type(error).__name__, "status": getattr(error, "status_code", None), "code": getattr(error, "code", None)}
    return {"type": None}


ollama_client = OllamaClient(host=BASE)


@check("ollama_chat")
def _():
    reply = ollama_client.chat(model=CHAT, messages=[{"role": "user", "content": "Say hello."}], options={"temperature": 0, "num_predict": SHORT})
    streamed = list(
        ollama_client.chat(model=CHAT, messages=[{"role": "user", "content": "Say hello."}], options={"temperature": 0, "num_predict": SHORT}, stream=True)
    )
    return {
        "content": reply.message.content,
        "done_reason": reply.done_reason,
        "eval_count": reply.eval_count,
        "streamed_text": "".join(part.message.content for part in streamed),
        "streamed_parts": len(streamed),
    }


@check("ollama_embed_list")
def _():
    embedded = ollama_client.embed(model=EMBED, input=["The cat sat on the mat.", "Dogs bark at night."])
    return {"count": len(embedded.embeddings), "dimensions": len(embedded.embeddings[0]), "models": [m.model for m in ollama_client.list().models]}


chat_ollama = ChatOllama(model=CHAT, base_url=BASE, temperature=0, num_predict=SHORT)


@check("langchain_ollama_invoke")
def _():
    message = chat_ollama.invoke("Say hello.")
    return {"type": message.type, "content": message.content, "done_reason": message.response_metadata.get("done_reason")}


@check("langchain_ollama_stream")
def _():
    chunks = [chunk.content for chunk in chat_ollama.stream("Count to five.")]
    return {"chunks": len(chunks), "text": "".join(chunks)}


@check("langchain_ollama_embeddings")
def _():
    embeddings = OllamaEmbeddings(model=EMBED, base_url=BASE)
    documents = embeddings.embed_documents(["The cat sat on the mat.", "Dogs bark at night."])
    query = embeddings.embed_query("The cat sat on the mat.")
    return {
        "documents": len(documents),
        "dimensions": len(documents[0]),
        "query_dimensions": len(query),
        "query_matches_document": max(abs(p - q) for p, q in zip(query, documents[0])) < 1e-6,
    }


chat_openai = ChatOpenAI(model=CHAT, base_url=f"{BASE}/v1", api_key="unused", temperature=0, max_tokens=SHORT, max_retries=0)


@check("langchain_openai_invoke")
def _():
    message = chat_openai.invoke("Say hello.")
    return {"type": message.type, "content": message.content, "finish_reason": message.response_metadata.get("finish_reason")}


@check("langchain_openai_stream")
def _():
    chunks = [chunk.content for chunk in chat_openai.stream("Count to five.")]
    return {"chunks": len(chunks), "text": "".join(chunks)}


print(json.dumps(results))
