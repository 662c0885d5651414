"""The options models of the tool commands — ``compare``, ``report``, ``validate``, ``import``,
``new-task``, ``traces stats|convert|build`` and ``submission pack``.

Declared like a run's options (:mod:`agentic_bench.options.schema`): flags and ``--help`` are
generated from them, each command takes ``--config FILE``, and ``config check|show|schema``
cover them. Imported only when such a command runs (pydantic stays out of ``--help``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import field_validator

from agentic_bench.options.schema import OptionsModel, option

IMPORT_FORMAT_HELP = (
    "abench, atif, claude-code, codex, dynamo, langsmith, mlcommons-agentic, mooncake, "
    "otel-genai, sglang-agentic, sharegpt, tracelab, weka, native, or auto (guess from the "
    "file); docs/importers.md says what each keeps and loses")


class ToolOptions(OptionsModel):
    """A tool command's options: nothing in them identifies a run."""

    identity_default: ClassVar[bool] = False
    description: ClassVar[str] = ""

    @field_validator("*", mode="after")
    @classmethod
    def _some_positional(cls, value: Any, info: Any) -> Any:
        """A positional list (``DIR...``, ``FILE...``) needs at least one value."""
        field = cls.model_fields[info.field_name]
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        if extra.get("positional") and isinstance(value, tuple) and not value:
            raise ValueError("give at least one")
        return value


class CompareOptions(ToolOptions):
    option_group: ClassVar[str] = "compare"
    description: ClassVar[str] = (
        "Print headline metrics of each run side by side with ratios against the first run, "
        "and write compare.html (overlaid TTFT/TPOT/turn-latency CDFs). Each DIR is a run's "
        "output directory; its summary.json is used (rebuilt from records.jsonl when absent). "
        "See docs/report.md.")

    run_dirs: tuple[Path, ...] = option(..., positional=True, metavar="DIR",
                                        help="run output directories, or --repeat folders "
                                        "(judged across their runs); the first is the "
                                        "baseline")
    out: Path | None = option(None, metavar="DIR",
                              help="directory for compare.html (default: "
                              "results/compare-<time>/, as a run's own outputs; never the "
                              "current directory)")
    metric: tuple[str, ...] = option(
        (), metavar="NAME", example=("ttft_p99_ms",),
        help="judge this figure of every run against the first: BETTER / WORSE / SAME / "
        "INCONCLUSIVE from the 95% interval of B/A (a bootstrap over sessions; rates over time "
        "windows; across runs, Welch t on log values, when a DIR is a --repeat folder) against "
        "--threshold; repeatable; a latency <ttft|tpot|request|turn|session>_"
        "<mean|p50|p90|p99>_ms or requests_per_s, output_tokens_per_s, sessions_per_s, "
        "goodput_sessions_per_s (with --gate and no --metric: TTFT p50/p99, TPOT p50, request "
        "and session p99, requests/s, output tok/s). Without --metric or --gate compare only "
        "shows the runs. docs/metrics.md, 'A/B verdicts'")
    threshold: str = option("5%", metavar="T",
                            help="the smallest difference that matters: SAME when the interval "
                            "lies within ±T, WORSE/BETTER when wholly beyond it (default 5%)")
    gate: bool = option(False, help="exit 3 when a metric is WORSE, 4 when one is INCONCLUSIVE "
                        "(see --inconclusive), 0 otherwise: a regression gate for CI "
                        "(docs/ci.md)")
    inconclusive: Literal["fail", "pass"] = option(
        "fail", metavar="fail|pass", help="what INCONCLUSIVE does under --gate: fail (exit 4, "
        "the default) or pass")
    allow_different_workloads: bool = option(
        False, help="judge runs whose work differs (trace, sessions, load, sampling, ...): "
        "refused otherwise, with what differs")


class ReportOptions(ToolOptions):
    option_group: ClassVar[str] = "report"
    description: ClassVar[str] = (
        "Rebuild a run's summary.json, summary.txt and report.html from its records.jsonl. Run "
        "facts that records do not hold (duration, completeness, stop reason, default SLOs, "
        "accuracy, versions) are kept from an existing summary.json; without one they are "
        "derived from the records, and the summary says so. See docs/report.md.")

    run_dir: Path = option(..., positional=True, metavar="DIR",
                           help="a run's output directory (--out)")
    session: str | None = option(None, metavar="ID",
                                 help="draw this session's waterfall (its session_id, e.g. "
                                 "'weather-trip#0') instead of the slowest and the median")


class ValidateOptions(ToolOptions):
    option_group: ClassVar[str] = "validate"
    description: ClassVar[str] = (
        "Validate a trace (JSONL, one session per line). Prints file:line: field: problem for "
        "each problem; exit 2 if any. A file in a known foreign format (MLCommons agentic "
        "JSONL, Mooncake, OTel, ShareGPT, SGLang) is recognised and checked with its importer.")

    files: tuple[Path, ...] = option(..., positional=True, metavar="FILE",
                                     help="trace files (a Weka trace directory too)")


class ImportOptions(ToolOptions):
    option_group: ClassVar[str] = "import"
    description: ClassVar[str] = (
        "Convert a trace in a public format into this project's JSONL trace (see "
        "docs/importers.md for each mapping and what is lost). The output is written only when "
        "the whole input converts; a broken input reports file:line (or a JSON path) and exits "
        "2.")

    format: str = option(..., positional=True, metavar="FORMAT", help=IMPORT_FORMAT_HELP)
    inputs: tuple[Path, ...] = option(..., positional=True, metavar="PATH",
                                      help="input files (or folders, where the format has "
                                      "them: a Claude Code project, a Weka corpus); their "
                                      "sessions go into one trace, in the order given")
    out: Path = option(..., metavar="OUT", help="output trace (JSONL)")
    limit: int | None = option(None, metavar="N", help="convert at most N sessions")


class NewTaskOptions(ToolOptions):
    option_group: ClassVar[str] = "new-task"
    description: ClassVar[str] = (
        "Write a plugin package NAME/ that registers benchmark NAME through the "
        "agentic_bench.plugins entry point and passes its own tests. Next: `pip install -e "
        "NAME`, `agentic-bench run NAME`. Tutorial: docs/adding-a-task.md.")

    name: str = option(..., positional=True, metavar="NAME",
                       help="benchmark name, e.g. my-qa (lowercase, digits, hyphens)")
    dir: Path = option(Path("."), metavar="PARENT",
                       help="where to create NAME/ (default: the current directory)")
    package: str | None = option(None, metavar="PKG",
                                 help="import name (default: <name>_bench)")
    force: bool = option(False, help="write into an existing directory")


class TracesStatsOptions(ToolOptions):
    option_group: ClassVar[str] = "traces stats"
    description: ClassVar[str] = (
        "Describe a trace: sessions, turns and requests per session, input/output token "
        "distributions (recorded usage, else chars/4 — the output says which), tool calls, "
        "think time and the prefix-sharing ratio of the requests a recorded-history replay "
        "would send.")

    file: Path = option(..., positional=True, metavar="FILE",
                        help="trace file (native JSONL or any importable format; a Weka trace "
                        "directory too)")
    format: str = option("auto", metavar="FORMAT",
                         help="input format (default auto; see `agentic-bench import --help`)")
    json_output: bool = option(False, flag="--json", help="print the statistics as JSON")
    block_chars: int = option(64, metavar="N",
                              help="block size for the prefix-sharing ratio (default 64 chars "
                              "≈ 16 tokens)")
    cache_capacity: tuple[str, ...] = option(
        (), metavar="A,B,C", example=("1000000,4000000",),
        help="Weka traces: also the theoretical prefix hit of finite KV caches of these many "
        "tokens (block-level LRU, one cache shared by the corpus, trees one after another; a "
        "sweep: 500000,1000000,4000000)")


class TracesConvertOptions(ToolOptions):
    option_group: ClassVar[str] = "traces convert"
    description: ClassVar[str] = (
        "Convert a trace with text (native, MLCommons agentic, a recording, ...) into Weka "
        "traces: per request its token counts and chained KV-cache block hashes under the "
        "given tokenizer, timings, subagents — no prompt text — so agent traffic can be shared "
        "without its prompts. Replaying the result writes prompts of exactly the recorded token "
        "counts (docs/agentx.md).")

    input: Path = option(..., positional=True, metavar="IN",
                         help="trace (native JSONL or any importable format)")
    to: Literal["weka"] = option(..., help="output format")
    out: Path = option(..., metavar="OUT",
                       help="a .jsonl corpus (one trace per line), a directory (one .json per "
                       "trace) or a .json file (one session)")
    format: str = option("auto", metavar="FORMAT", help="input format (default auto)")
    tokenizer: str = option(..., metavar="DIR|server",
                            help="the tokenizer of the model the traces will be replayed "
                            "against: a local Hugging Face folder or tokenizer.json, or "
                            "'server' with --endpoint")
    endpoint: str | None = option(None, metavar="URL|embedded", redact=True,
                                  help="with --tokenizer server: whose tokenize route "
                                  "(embedded: start the packaged llama.cpp endpoint for it)")
    block_size: int = option(64, metavar="N",
                             help="tokens per hashed block (default 64, as the Weka corpora)")


SYNTHETIC = "synthetic (fan-out agents: a coordinator and parallel subagents)"


class TracesBuildOptions(ToolOptions):
    option_group: ClassVar[str] = "traces build"
    description: ClassVar[str] = (
        "agentic-edge: turn BFCL's multi-turn ground truth into recorded sessions (user turns, "
        "the expected calls, the simulated tools' real results), deterministically, with a "
        "manifest (source package version, sha256). synthetic: coordinator sessions that fan "
        "out to --fanout parallel subagents (--depth levels), each with its own history, and "
        "join (docs/trace-format.md, parallel steps); --out is required.")

    kind: Literal["agentic-edge", "synthetic"] = option(
        ..., positional=True, metavar="agentic-edge|synthetic",
        help="what to build: agentic-edge (a benchmark's trajectories) or synthetic")
    out: Path | None = option(None, metavar="FILE",
                              help="output trace (default: the benchmark's trace in traces/)")
    limit_per_subset: int = option(10, metavar="N",
                                   help="samples per multi-turn subset (default 10; 0 = all "
                                   "200)")
    verify: bool = option(False, help="only check the committed trace against its manifest's "
                          "sha256")
    fanout: int = option(4, metavar="N", group=SYNTHETIC,
                         help="subagents per fan-out (default 4)")
    depth: int = option(1, metavar="D", group=SYNTHETIC,
                        help="fan-out levels: subagents fan out again below themselves "
                        "(default 1)")
    sessions: int = option(8, metavar="N", group=SYNTHETIC, help="sessions (default 8)")
    turns: int = option(1, metavar="T", group=SYNTHETIC,
                        help="user turns per session, each with its own fan-out (default 1)")
    max_tokens: int = option(32, metavar="N", group=SYNTHETIC,
                             help="max_tokens of every LLM step (default 32)")
    seed: int = option(0, metavar="S", group=SYNTHETIC, help="seed (default 0)")


class SubmissionPackOptions(ToolOptions):
    option_group: ClassVar[str] = "submission pack"
    description: ClassVar[str] = (
        "Copy one or more run folders into an MLPerf submission tree: "
        "results/<system>/<benchmark>/<scenario>/ as the checker reads it (E2E-RAG qna and db: "
        "LoadGen's performance/run_1, accuracy with a hashed accuracy.txt and a truncated log, "
        "TEST09 (qna), user.conf; Edge Agentic: config.yaml, performance/ and accuracy/ JSON), "
        "with templates for the system description and measurements (values marked 'FILL IN:'). "
        "Run folders of one benchmark merge (performance, accuracy and TEST09 runs); packing "
        "again into the same --out adds to it and keeps filled-in templates. Prints what is "
        "still missing.")

    run_dirs: tuple[Path, ...] = option(..., positional=True, metavar="RUN_DIR",
                                        help="run folders (--out of `agentic-bench run ...` "
                                        "or `rag build-index --loadgen mlperf`)")
    submitter: str = option(..., metavar="NAME",
                            help="your organisation, as the folder and the system JSON name it")
    system: str = option(..., metavar="NAME",
                         help="system name (results/<NAME>/, systems/<NAME>.json)")
    division: Literal["closed", "open"] = option(
        ..., help="closed (MLPerf's configuration, compliance tests) or open")
    out: Path = option(..., metavar="DIR",
                       help="submission folder (created; an existing one is added to)")
    json_output: bool = option(False, flag="--json",
                               help="print the result as JSON instead of text")

    @field_validator("submitter", "system")
    @classmethod
    def _one_name(cls, value: str) -> str:
        """A folder name and a JSON value of the submission: one line of printable text, no
        path separator, not empty."""
        if not value.strip() or any(not ch.isprintable() for ch in value) or \
                "/" in value or "\\" in value or value in (".", ".."):
            raise ValueError(f"{value!r}: expected one line of printable text without '/' or "
                             "'\\' (it names folders and files of the submission)")
        return value


class SampleLayoutOptions(ToolOptions):
    option_group: ClassVar[str] = "rag sample-layout"
    description: ClassVar[str] = (
        "Write frames_dataset.tsv and doc_html/ (Wikipedia-like HTML pages with "
        "url_mapping.json) from HotpotQA, laid out as MLPerf's E2E-RAG data setup leaves them, "
        "to try `run rag-e2e --frames DIR/frames_dataset.tsv --corpus DIR/doc_html` without "
        "the MLPerf data.")

    out: Path = option(..., metavar="DIR", help="folder to write into")
    questions: int = option(20, metavar="N",
                            help="questions (seeded sample; default 20); their paragraphs "
                            "become pages")
    distractors: int = option(100, metavar="N",
                              help="other paragraphs written as pages (default 100)")
    seed: int = option(42, metavar="S", help="sample seed (42)")

    @field_validator("questions")
    @classmethod
    def _questions(cls, value: int) -> int:
        if value < 1:
            raise ValueError(f"{value}: must be at least 1")
        return value

    @field_validator("distractors")
    @classmethod
    def _distractors(cls, value: int) -> int:
        if value < 0:
            raise ValueError(f"{value}: must be at least 0")
        return value


__all__ = ["CompareOptions", "ImportOptions", "NewTaskOptions", "ReportOptions",
           "SampleLayoutOptions", "SubmissionPackOptions", "ToolOptions", "TracesBuildOptions",
           "TracesConvertOptions", "TracesStatsOptions", "ValidateOptions"]
