"""Pass a helper as `worker_init_fn=` to a DataLoader call (fixes of WS101, WS104, WS201)."""

from __future__ import annotations

from ..analysis.loaders import LoaderCall
from ..types import AddDictEntry, AddKeyword, FileEdits


def add_worker_init_keyword(loader: LoaderCall, helper: str) -> FileEdits:
    """Add `worker_init_fn=helper` to the `**dict` literal the call's keywords come from, or
    else to the call itself.

    Only a dict in the loader's own file is edited: the helper is defined next to the loader,
    and a dict in another file cannot see it.
    """
    for splat in loader.splats:
        if splat is not None and splat.value.span is not None and splat.path == loader.module.path:
            return FileEdits(
                splat.path, (AddDictEntry(splat.value.span, "worker_init_fn", helper),)
            )
    assert loader.call.span is not None
    return FileEdits(loader.module.path, (AddKeyword(loader.call.span, "worker_init_fn", helper),))
