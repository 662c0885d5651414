"""The server's side of a run: Prometheus metrics scraped over time (``--server-metrics``).

:class:`MetricsScraper` stores each scrape as served (in :data:`SCRAPES_FILE`) while the run
goes on; :func:`parse_scrape` reads one into a :class:`ParsedScrape`; :func:`digest` turns the
scrapes into the summary's ``server_metrics`` block and :func:`series` into plots.
:data:`KNOWN` lists (as :class:`Known` entries) the families of vLLM, SGLang, llama.cpp, TGI,
Dynamo and NVIDIA's DCGM exporter given names; anything else is kept raw.
"""

from agentic_bench.server_metrics.digest import digest, series
from agentic_bench.server_metrics.families import KNOWN, Known
from agentic_bench.server_metrics.parse import ParsedScrape, parse_scrape
from agentic_bench.server_metrics.scraper import SCRAPES_FILE, MetricsScraper

__all__ = ["KNOWN", "SCRAPES_FILE", "Known", "MetricsScraper", "ParsedScrape", "digest",
           "parse_scrape", "series"]
