"""#30 item 7: a .tar.gz corpus is checked member by member before anything is extracted (no
absolute path, no '..', no link, no device or FIFO, sizes capped), not left to Python's 'data'
extraction filter alone (Python 3.11 before 3.11.13 has published bypasses: CVE-2025-4517);
a bad archive is a clear CorpusError, not a traceback."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

import rag_pipeline.reference_corpus as rc
from rag_pipeline import CorpusError


def archive(path: Path, *members: tarfile.TarInfo, data: bytes = b"<html>page</html>") -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for member in members:
            if member.isfile():
                member.size = len(data)
                tar.addfile(member, io.BytesIO(data))
            else:
                tar.addfile(member)
    return path


def info(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    member = tarfile.TarInfo(name)
    member.type = kind
    member.linkname = link
    return member


@pytest.mark.parametrize(("member", "why"), [
    (info("/etc/passwd.html"), "an absolute path"),
    (info("pages/../../evil.html"), "'..' path"),
    (info("pages/link.html", tarfile.SYMTYPE, "/etc/passwd"), "a link"),
    (info("pages/hard.html", tarfile.LNKTYPE, "pages/a.html"), "a link"),
    (info("pages/tty", tarfile.CHRTYPE), "not a plain file"),
    (info("pages/pipe", tarfile.FIFOTYPE), "not a plain file"),
])
def test_bad_members_are_refused_before_extraction(tmp_path: Path, member: tarfile.TarInfo,
                                                   why: str) -> None:
    path = archive(tmp_path / "corpus.tar.gz", info("pages/a.html"), member)
    with pytest.raises(CorpusError, match=why):
        rc._unpack(path, tmp_path / "cache")
    cache = tmp_path / "cache"
    assert not cache.exists() or not list(cache.rglob("*"))  # nothing was written


def test_sizes_are_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rc, "MAX_MEMBER_BYTES", 10)
    path = archive(tmp_path / "corpus.tar.gz", info("pages/a.html"))
    with pytest.raises(CorpusError, match="17 bytes, over 10"):
        rc._unpack(path, tmp_path / "cache")


def test_a_good_archive_unpacks(tmp_path: Path) -> None:
    path = archive(tmp_path / "corpus.tar.gz", info("pages", tarfile.DIRTYPE),
                   info("pages/a.html"), info("pages/b.html"))
    folder = rc._unpack(path, tmp_path / "cache")
    assert sorted(p.name for p in folder.iterdir()) == ["a.html", "b.html"]
    not_tar = tmp_path / "x.tar.gz"
    not_tar.write_bytes(b"not an archive")
    with pytest.raises(CorpusError, match="not a readable tar archive"):
        rc._unpack(not_tar, tmp_path / "cache2")
