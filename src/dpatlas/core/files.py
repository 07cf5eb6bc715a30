"""Files written whole: written beside their place, synced, then swapped in at once.

Every product dpatlas writes (maps, GeoTIFFs, PNGs, web pages, synthetic edge lists, the
demo's reports) goes through :func:`written_whole`, so that a write that fails half-way (a
full disk, a driver error, a crash) leaves an existing file, perhaps the only copy of a
release that cost budget, as it was, and never half a file in its place. The price: the
folder must be writable, since the new file is made beside the old one.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["written_whole"]


@contextmanager
def written_whole(path: str | Path) -> Iterator[Path]:
    """A new file's path beside ``path`` to write to; swapped in whole once the block ends.

    The block writes the temporary file (a hidden name in the same folder, with the same
    suffix, so that writers choosing a format by suffix choose the same one). When the block
    ends, the file is synced to disk, given the mode of the file it replaces, and moved over
    ``path`` in one step (``os.replace``, atomic on one file system); then the folder is
    synced. When the block raises, the temporary file is deleted and ``path`` is untouched.
    A symbolic link at ``path`` keeps pointing where it did: the file it points to is
    replaced. An existing ``path`` that is read-only is refused (``PermissionError``) before
    anything is written: a swap could replace it, but write protection is a choice to respect.
    While it is written, the temporary file has the mode the writer gives a new file (under
    the usual umask, readable by others); a file kept private by its mode (0600) is best
    written in a private folder.

    Examples
    --------
    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "report.txt"
    >>> _ = target.write_text("old")
    >>> with written_whole(target) as partial:
    ...     _ = partial.write_text("new")
    >>> target.read_text()
    'new'
    >>> with written_whole(target) as partial:
    ...     _ = partial.write_text("half a rep")
    ...     raise OSError(28, "No space left on device")
    Traceback (most recent call last):
    ...
    OSError: [Errno 28] No space left on device
    >>> target.read_text(), sorted(p.name for p in target.parent.iterdir())
    ('new', ['report.txt'])
    """
    target = Path(path)
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    if target.is_file() and not os.access(target, os.W_OK):
        raise PermissionError(
            f"{path} exists and is read-only; make it writable or choose another name"
        )
    token = f"{os.getpid()}-{secrets.token_hex(4)}"
    partial = target.with_name(f".{target.stem[:100]}.partial-{token}{target.suffix}")
    try:
        yield partial
        with open(partial, "rb+") as handle:
            os.fsync(handle.fileno())
        if target.exists():
            os.chmod(partial, stat.S_IMODE(target.stat().st_mode))
        os.replace(partial, target)
        _sync_folder(target.parent)
    finally:
        partial.unlink(missing_ok=True)


def _sync_folder(folder: Path) -> None:
    """Sync ``folder``'s entries to disk (the swap's rename), where the system allows it."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:  # Windows cannot open a folder: its rename is already durable
        return
    try:
        os.fsync(handle)
    except OSError:  # some file systems refuse to sync a folder; the file itself is synced
        pass
    finally:
        os.close(handle)
