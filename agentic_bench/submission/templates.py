"""What a submitter fills in: the system description, each result's measurements.json and
README.md. Every value only the submitter knows is a string starting with :data:`FILL`, so the
missing-items report (and a reviewer) finds each one.

Field lists from mlcommons/inference b66003e1 ``tools/submission/submission_checker/
constants.py``: the system description's ``SYSTEM_DESC_REQUIRED_FIELDS`` (1833-1870; checked in
``checks/system_check.py`` 147-186), ``status`` one of ``VALID_AVAILABILITIES`` (1393),
``system_type`` one of datacenter / edge / both (``system_check.py`` 97-118); the measurements'
``SYSTEM_IMP_REQUIRED_FILES`` (1944-1950; ``checks/measurements_checks.py`` 124-144) and the
files ``REQUIRED_MEASURE_FILES`` beside it (1486: user.conf — not for endpoints results — and
README.md; 96-122).
"""

from __future__ import annotations

from typing import Any

FILL = "FILL IN:"

SYSTEM_FIELDS: dict[str, str] = {
    "number_of_nodes": "nodes in the system (a number, e.g. 1)",
    "host_processor_model_name": "host CPU model",
    "host_processors_per_node": "CPU sockets per node (a number)",
    "host_processor_core_count": "cores per CPU (a number)",
    "host_memory_capacity": "host memory, e.g. 512 GB",
    "host_storage_capacity": "storage, e.g. 2 TB",
    "host_storage_type": "storage type, e.g. NVMe SSD",
    "accelerators_per_node": "accelerators per node (a number; 0 for none)",
    "accelerator_model_name": "accelerator model (or N/A)",
    "accelerator_memory_capacity": "accelerator memory, e.g. 80 GB (or N/A)",
    "framework": "serving stack and version, e.g. vLLM 0.11.0 (the endpoint agentic-bench "
                 "drove)",
    "operating_system": "OS and kernel, e.g. Ubuntu 24.04, Linux 6.8",
    "other_software_stack": "drivers, CUDA/ROCm, Python, agentic-bench version",
    "host_processor_frequency": "CPU frequency",
    "host_processor_caches": "CPU caches",
    "host_memory_configuration": "DIMMs, e.g. 16x 32 GB DDR5-4800",
    "host_processor_interconnect": "CPU interconnect",
    "host_networking": "host network, e.g. 100 GbE (or N/A)",
    "host_networking_topology": "network topology (or N/A)",
    "accelerator_frequency": "accelerator clock",
    "accelerator_host_interconnect": "e.g. PCIe Gen5 x16",
    "accelerator_interconnect": "e.g. NVLink (or N/A)",
    "accelerator_interconnect_topology": "accelerator topology (or N/A)",
    "accelerator_memory_configuration": "e.g. HBM3",
    "accelerator_on-chip_memories": "on-chip memories",
    "cooling": "air or liquid",
    "hw_notes": "hardware notes (may stay empty once reviewed)",
    "sw_notes": "software notes (may stay empty once reviewed)",
    "host_network_card_count": "network cards per node (a number)",
    "system_type_detail": "e.g. on-premise server, edge device",
}
STATUS = "available | preview | rdi"
SYSTEM_TYPES = ("datacenter", "edge", "datacenter,edge", "edge,datacenter")

MEASUREMENT_FIELDS: dict[str, str] = {
    "input_data_types": "data type of the model's inputs, e.g. int32 token ids",
    "retraining": "no (closed division) or what was retrained",
    "starting_weights_filename": "the checkpoint served (file or hub id)",
    "weight_data_types": "e.g. mxfp4, bf16",
    "weight_transformations": "quantisation or conversion applied (or none)",
}


def fill(what: str) -> str:
    return f"{FILL} {what}"


def system_description(*, division: str, submitter: str, system: str,
                       system_type: str) -> dict[str, Any]:
    """``systems/<system>.json``: the facts we know written, every other one a placeholder.
    ``system_type`` is written (the checker refuses to load a system whose type it does not
    know), and the missing-items report asks the submitter to confirm it."""
    out: dict[str, Any] = {"division": division, "submitter": submitter,
                           "status": fill(STATUS), "system_name": system,
                           "system_type": system_type}
    out.update({k: fill(v) for k, v in SYSTEM_FIELDS.items()})
    out["hw_notes"] = out["sw_notes"] = ""
    # no "is_network" key: the checker reads any non-empty string there as network mode
    # (system_check.py 159-161) and then asks for the network fields
    return out


def measurements(benchmark: str, scenario: str) -> dict[str, Any]:
    """``results/<system>/<benchmark>/<scenario>/measurements.json``."""
    return {**{k: fill(v) for k, v in MEASUREMENT_FIELDS.items()},
            "starting_weights_filename": fill(MEASUREMENT_FIELDS["starting_weights_filename"]
                                              + f" ({benchmark}, {scenario})")}


def result_readme(benchmark: str, scenario: str, runs: list[dict[str, str]]) -> str:
    """``README.md`` beside a result: how it was produced (the runs' command lines) and what
    the submitter adds."""
    lines = [f"# {benchmark} / {scenario}", "",
             "Produced with agentic-bench (see ../../../../code/). Runs packed here:", ""]
    for run in runs:
        lines += [f"- `{run['part']}`: run folder `{run['folder']}`", "",
                  "  ```", f"  {run['command']}", "  ```", ""]
    lines += [f"{FILL} how the system under test was started (server command line, model "
              "files, settings) so a reviewer can reproduce it.", ""]
    return "\n".join(lines)


def code_readme(benchmarks: list[str]) -> str:
    return "\n".join([
        "# Code", "",
        "The harness that produced these results is agentic-bench; the runs' exact command "
        "lines are in each result's README.md. " + fill("a link to the agentic-bench revision "
                                                         "and to your serving stack's code."),
        "", "Benchmarks: " + ", ".join(benchmarks), ""])


def documentation_readme(submitter: str) -> str:
    return "\n".join([
        f"# {submitter}: documentation", "",
        fill("calibration and any other documentation your division requires."), ""])
