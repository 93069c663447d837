"""Write fixed files atomically, keeping their encoding, byte order mark, line endings and
mode, and never over a file that changed since it was read."""

from __future__ import annotations

import codecs
import contextlib
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from .errors import describe_os_error
from .lines import source_lines
from .types import SourceFile


class WriteError(Exception):
    """A fixed file could not be written; the file on disk was left as it was."""


def encode_text(source: SourceFile, text: str) -> bytes:
    """Encode `text` like `source` was encoded, byte order mark included."""
    try:
        data = text.encode(source.encoding)
    except UnicodeEncodeError as error:
        line = len(source_lines(text[: error.start + 1]))
        raise WriteError(
            f"cannot write {source.path}: character {text[error.start]!r} on line {line} "
            f"cannot be encoded as {source.encoding}"
        ) from error
    return codecs.BOM_UTF8 + data if source.bom else data


def _check_unchanged(source: SourceFile, target: str) -> None:
    try:
        with open(target, "rb") as handle:
            current = handle.read()
    except FileNotFoundError as error:
        raise WriteError(
            f"{source.path} changed on disk since it was read (it no longer exists); "
            "not overwritten"
        ) from error
    except OSError as error:
        raise WriteError(f"cannot re-read {source.path}: {describe_os_error(error)}") from error
    if current != source.raw:
        raise WriteError(f"{source.path} changed on disk since it was read; not overwritten")


def write_atomic(source: SourceFile, new_text: str) -> None:
    """Replace the file with `new_text` atomically, unless it changed since it was read."""
    # Through a symlink, replace the target: replacing the link would turn it into a file.
    target = os.path.realpath(source.path)
    _check_unchanged(source, target)
    try:
        status = os.stat(target)
    except OSError as error:
        raise WriteError(f"cannot write {source.path}: {describe_os_error(error)}") from error
    # os.access alone is not enough: root may write anything, but a file without the owner's
    # write bit was made read-only on purpose.
    if not os.access(target, os.W_OK) or not status.st_mode & stat.S_IWUSR:
        raise WriteError(f"{source.path} is read-only; not overwritten")
    _replace(
        source.path,
        target,
        encode_text(source, new_text),
        source.mode,
        owner=(status.st_uid, status.st_gid),
        check=lambda: _check_unchanged(source, target),
    )


def _replace(
    label: Path,
    target: str,
    data: bytes,
    mode: int,
    *,
    owner: tuple[int, int] | None = None,
    check: Callable[[], None] | None = None,
) -> None:
    """Write `data` to a temporary file beside `target`, then rename it over `target`.

    `check` runs just before the rename (it may refuse with WriteError); on any failure the
    temporary file is removed and `target` is left as it was.
    """
    directory, name = os.path.split(target)
    try:
        descriptor, temporary = tempfile.mkstemp(
            dir=directory, prefix="." + name + ".", suffix=".workerseed.tmp"
        )
    except OSError as error:
        raise WriteError(
            f"cannot write {label}: cannot create a temporary file in {directory}: "
            f"{describe_os_error(error)}"
        ) from error
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if owner is not None and owner != (os.getuid(), os.getgid()):
            # Keep the owner when we can (e.g. running as root); chown may clear set-id bits,
            # so it comes before chmod.
            with contextlib.suppress(OSError):
                os.chown(temporary, *owner)
        os.chmod(temporary, mode)
        if check is not None:
            check()
        os.replace(temporary, target)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, WriteError) or not isinstance(error, Exception):
            raise
        detail = describe_os_error(error) if isinstance(error, OSError) else str(error)
        raise WriteError(
            f"cannot write {label}: {detail}; the original file is unchanged"
        ) from error
    _fsync_directory(directory)


def _fsync_directory(directory: str) -> None:
    # Makes the rename durable; best effort, since some file systems refuse it.
    with contextlib.suppress(OSError):
        descriptor = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


#: Permission bits of a file `write_text_atomic` creates.
_NEW_FILE_MODE = 0o644


def write_text_atomic(path: Path, text: str) -> None:
    """Write `text` (UTF-8) to `path`, new or not, so that no reader sees half of it.

    Unlike `write_atomic`, this is for files workerseed owns (reports): an existing file is
    replaced whatever it holds, and keeps its permission bits.
    """
    target = os.path.realpath(path)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = _NEW_FILE_MODE
    except OSError as error:
        raise WriteError(f"cannot write {path}: {describe_os_error(error)}") from error
    _replace(path, target, text.encode("utf-8"), mode)
