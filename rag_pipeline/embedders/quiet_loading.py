"""Model loading that leaves the terminal to the run's own progress line.

transformers 5 draws a "Loading weights" tqdm bar for every model it loads (embedder, reranker,
ONNX export); during a run that bar lands between the progress lines. The library's own switch
turns it off; download bars are moot (loading is offline: local files only).
"""

from __future__ import annotations


def silence_loading_bars() -> None:
    try:
        from transformers.utils import logging
    except ImportError:  # sentence-transformers brings transformers; without it nothing draws
        return
    logging.disable_progress_bar()  # type: ignore[no-untyped-call]


__all__ = ["silence_loading_bars"]
