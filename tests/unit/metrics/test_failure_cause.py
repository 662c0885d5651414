"""#42 (smaller items): the cause a failed run names is readable — an HTML error page (a proxy,
a non-OpenAI server) is its title or text, not raw markup; an OpenAI error its message."""

from __future__ import annotations

from agentic_bench.metrics.early_stop import cause


def _failed(error: str, status: int) -> dict[str, object]:
    return {"type": "step", "kind": "llm", "status": "error", "error_type": "http",
            "http_status": status, "error": error}


def test_an_html_error_page_is_named_by_its_title() -> None:
    page = ("HTTP 502: <html><head><title>502 Bad Gateway</title></head><body><center><h1>502 "
            "Bad Gateway</h1></center><hr><center>nginx/1.25</center></body></html>")
    found = cause([_failed(page, 502)])
    assert found == "HTTP 502: 502 Bad Gateway (an HTML page, not an OpenAI error)"


def test_an_html_page_without_title_is_its_text() -> None:
    page = ("HTTP 404: <!DOCTYPE html><html><body><style>p{color:red}</style><h1>Not Found"
            "</h1><p>No route &amp; no model.</p></body></html>")
    found = str(cause([_failed(page, 404)]))
    assert found.startswith("HTTP 404: Not Found No route & no model.") and "<" not in found


def test_an_openai_error_is_its_message() -> None:
    found = cause([_failed('HTTP 400: {"error": {"message": "model not found"}}', 400)])
    assert found == "HTTP 400: model not found"
