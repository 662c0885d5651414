"""The in-process model's chat handler: our ChatML prompt, and the usage a stream lacks.

``--endpoint inproc`` gives ``llama_cpp.Llama`` a chat handler built from
:func:`.routing_prompt.render_routing_prompt` without tools: ChatML turns, ``tool`` results
included (llama-cpp-python's own ``chatml`` format drops them and always adds a system turn).
It is the text the embedded endpoint's routing and, until 2026-12-06, our llama-cpp-python shim
prompted with. No tool calls: those need the routing, which lives in front of ``llama-server``.

llama-cpp-python streams no ``usage``, so :class:`TokenTally` counts it: llama-cpp-python calls
a chat format's stopping criteria with the context's tokens after each sampled token (and once
more after the last), so the first call's length is the prompt's and the longest call's, less
the prompt, is one less than the tokens sampled. ``cached_tokens`` is the prompt's common
prefix with what the context held before the request (at most all but its last token, which
llama-cpp-python evaluates again to refresh the logits).
"""

from __future__ import annotations

from typing import Any

from agentic_bench.endpoint.routing_prompt import IM_END, render_routing_prompt


class TokenTally:
    """One request's token counts, from the stopping-criteria calls (always ``False``)."""

    def __init__(self, context_before: list[int]) -> None:
        self.context_before = context_before
        self.prompt_ids: list[int] | None = None
        self.longest = 0

    def __call__(self, input_ids: Any, logits: Any) -> bool:
        if self.prompt_ids is None:
            self.prompt_ids = [int(t) for t in input_ids]
        self.longest = max(self.longest, len(input_ids))
        return False

    def usage(self, finish_reason: str | None) -> dict[str, Any] | None:
        """OpenAI ``usage``; ``completion_tokens`` leaves out the end-of-turn token of a reply
        that stopped on it (``finish_reason: stop``). None when nothing was sampled."""
        if self.prompt_ids is None:
            return None
        prompt = len(self.prompt_ids)
        sampled = self.longest - prompt + 1
        completion = max(0, sampled - (1 if finish_reason == "stop" else 0))
        common = 0
        for before, now in zip(self.context_before, self.prompt_ids, strict=False):
            if before != now:
                break
            common += 1
        return {"prompt_tokens": prompt, "completion_tokens": completion,
                "total_tokens": prompt + completion,
                "prompt_tokens_details": {"cached_tokens": min(common, max(0, prompt - 1))}}


class ChatHandler:
    """A llama-cpp-python chat completion handler rendering our ChatML; ``tally`` (set before
    each request: requests run one at a time) counts that request's tokens."""

    def __init__(self) -> None:
        from llama_cpp import llama_chat_format

        self.tally = TokenTally([])
        formatter: Any = self._format  # llama-cpp-python's message TypedDicts are plain dicts
        self._handler = llama_chat_format.chat_formatter_to_chat_completion_handler(formatter)

    def _format(self, *, messages: list[dict[str, Any]], **_: Any) -> Any:
        from llama_cpp import StoppingCriteriaList
        from llama_cpp.llama_chat_format import ChatFormatterResponse

        return ChatFormatterResponse(prompt=render_routing_prompt(list(messages), None),
                                     stop=IM_END,
                                     stopping_criteria=StoppingCriteriaList([self.tally]))

    def __call__(self, **kwargs: Any) -> Any:
        return self._handler(**kwargs)
