"""Open Recent keeps a team store's URL (without its password) beside store files."""

from __future__ import annotations

from pathlib import Path

from core.store.engine import StoreUrl

from cauterule_gui.recent_stores import recent_stores, remember_store
from cauterule_gui.settings import make_settings


def test_a_team_store_url_is_remembered_without_its_password_and_never_pruned(tmp_path: Path) -> None:
    settings = make_settings()
    store_file = tmp_path / "mine.sqlite"
    store_file.write_bytes(b"")
    remember_store(settings, store_file)
    remember_store(settings, StoreUrl("postgresql://ana:s3cret@db.example/team"))
    remember_store(settings, tmp_path / "gone.sqlite")  # a file that does not exist is pruned
    listed = recent_stores(settings)
    assert [str(p) for p in listed] == ["postgresql://ana@db.example/team", str(store_file.resolve())]
    assert isinstance(listed[0], StoreUrl)
