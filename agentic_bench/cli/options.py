"""What ``run`` and ``replay`` do to their command line before it is parsed: ``--resume DIR``
reads the run's own options from ``DIR/config.yaml``. The options themselves are declared,
parsed and validated once in :mod:`agentic_bench.options`; the validated model is what
:mod:`agentic_bench.run` runs."""

from __future__ import annotations


def with_resumed_options(argv: list[str]) -> list[str]:
    """``--resume DIR`` without ``--config``: the run's own options (``DIR/config.yaml``) under
    what the command line says, so a resume needs no option typed again."""
    from pathlib import Path

    folder = None
    for i, word in enumerate(argv):
        if word == "--resume" and i + 1 < len(argv):
            folder = argv[i + 1]
        elif word.startswith("--resume="):
            folder = word.split("=", 1)[1]
    if folder is None or any(w == "--config" or w.startswith("--config=") for w in argv):
        return argv
    saved = Path(folder) / "config.yaml"
    return ["--config", str(saved), *argv] if saved.is_file() else argv
