"""A third-party trace format works like a built-in one (#23 item 4): a tiny plugin, installed as
a distribution with an ``importer:tiny`` entry point in the ``agentic_bench.plugins`` group (the
built-in importers are registered the same way), is used by import_file, --format auto, the
`import` and `validate` commands and `list` — and cannot shadow a built-in format."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

PLUGIN = '''
from agentic_bench.api import make_session


def import_tiny(path):
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh):
            if line.strip() and not line.startswith("#"):
                yield make_session(f"tiny-{n}", line.strip().split(" | "))


def _detect(head):
    return head.startswith("#tiny-trace")


import_tiny.detect = _detect


def import_broken(path):
    yield {"not": "a session"}


def import_shadow(path):
    raise AssertionError("a plugin must not replace a built-in format")
'''


@pytest.fixture
def tiny_plugin(tmp_path: Path, plugin_installer: Callable[..., None]) -> Path:
    plugin_installer(tmp_path / "site", "tiny_trace_plugin", PLUGIN, {
        "importer:tiny": "import_tiny", "importer:broken": "import_broken",
        "importer:sharegpt": "import_shadow"})
    trace = tmp_path / "chat.tiny"
    trace.write_text("#tiny-trace v1\nhello | and then?\nsecond session\n", encoding="utf-8")
    return trace


def test_the_plugin_format_is_available_and_detected(tiny_plugin: Path) -> None:
    from agentic_bench.trace.importers import (
        available,
        detect_format,
        import_file,
        resolve_format,
    )

    assert "tiny" in available()
    assert detect_format(tiny_plugin) == "tiny" and resolve_format("auto", tiny_plugin) == "tiny"
    sessions = list(import_file("tiny", tiny_plugin))
    assert [s.session_id for s in sessions] == ["tiny-1", "tiny-2"]
    assert [t.user for t in sessions[0].turns] == ["hello", "and then?"]


def test_a_plugin_cannot_shadow_a_builtin_and_bad_output_is_refused(tiny_plugin: Path,
                                                                   tmp_path: Path) -> None:
    from agentic_bench.errors import UsageError
    from agentic_bench.trace.importers import IMPORTERS, available, import_file

    assert available()["sharegpt"] is IMPORTERS["sharegpt"]
    with pytest.raises(UsageError, match="importer plugin 'broken' yielded dict"):
        list(import_file("broken", tiny_plugin))


def test_the_commands_use_it(tiny_plugin: Path, tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    from agentic_bench.cli.main import main

    out = tmp_path / "trace.jsonl"
    assert main(["import", "auto", str(tiny_plugin), "--out", str(out)]) == 0
    assert "(tiny)" in capsys.readouterr().out
    assert main(["validate", str(out)]) == 0
    capsys.readouterr()
    assert main(["list"]) == 0
    assert "tiny               [tiny-trace-plugin 0.1]" in capsys.readouterr().out


def test_the_builtins_are_registered_as_importer_plugins() -> None:
    import tomllib

    from agentic_bench.trace.importers import _TARGETS

    project = tomllib.loads((Path(__file__).parents[3] / "pyproject.toml").read_text())
    points = project["project"]["entry-points"]["agentic_bench.plugins"]
    registered = {k.split(":", 1)[1]: v for k, v in points.items() if k.startswith("importer:")}
    assert registered == {name: f"agentic_bench.trace.importers.{target}"
                          for name, target in _TARGETS.items()}
