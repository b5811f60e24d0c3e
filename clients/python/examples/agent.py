"""An agent loop with graphmem as its long-term memory, on any OpenAI-compatible endpoint.

Before each model call the agent asks graphmem for the context of the user's
message and puts it in the system prompt; after each turn it remembers both
messages. Memory outlives the process: run it twice and the second run knows
what the first was told.

    export OPENAI_BASE_URL=http://localhost:11434/v1   # any OpenAI-compatible endpoint
    export OPENAI_API_KEY=...                          # if it needs one
    export GRAPHMEM_URL=http://127.0.0.1:8080          # and GRAPHMEM_API_KEY if the server has keys
    python examples/agent.py --model llama3.1 --user Ada

It reads one user message per line on standard input (or takes them as
arguments) and prints each answer.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable

from openai import OpenAI
from openai.types.chat import ChatCompletionMessageParam

from graphmem import Graphmem, GraphmemError

SYSTEM = (
    "You are a helpful assistant with a long-term memory. What memory holds about this conversation is below; "
    "use it when it is relevant, and say so when it does not answer the question.\n\n{memory}"
)


def run(client: OpenAI, memory: Graphmem, model: str, user: str, messages: Iterable[str], history: int = 6) -> None:
    """Answer each message in turn, with memory's context before and a remember after each turn."""
    recent: list[ChatCompletionMessageParam] = []
    for text in messages:
        text = text.strip()
        if not text:
            continue
        ctx = memory.context(text, max_tokens=800)
        prompt: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": SYSTEM.format(memory=ctx.context)},
            *recent[-history:],
            {"role": "user", "content": text},
        ]
        reply = client.chat.completions.create(model=model, messages=prompt)
        answer = reply.choices[0].message.content or ""
        print(f"assistant: {answer}", flush=True)
        memory.remember(text, speaker=user, role="user")
        memory.remember(answer, speaker="assistant", role="assistant")
        recent += [{"role": "user", "content": text}, {"role": "assistant", "content": answer}]


def main() -> None:
    """Parse the command line and run the loop."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--model", default=os.environ.get("AGENT_MODEL", "gpt-4o-mini"), help="model name (env AGENT_MODEL)")
    p.add_argument("--user", default="user", help="the user's name, stored as the speaker of their messages")
    p.add_argument("messages", nargs="*", help="user messages (default: one per line on standard input)")
    args = p.parse_args()
    # OpenAI() reads OPENAI_BASE_URL and OPENAI_API_KEY; local servers often need no key.
    client = OpenAI(api_key=os.environ.get("OPENAI_API_KEY") or "unused")
    try:
        with Graphmem() as memory:
            run(client, memory, args.model, args.user, args.messages or sys.stdin)
    except GraphmemError as e:
        sys.exit(f"agent: graphmem: {e}")


if __name__ == "__main__":
    main()
