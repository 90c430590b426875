"""An earlier commit's ``sparsekm`` loaded beside this checkout's, in one process: the
same-process baseline of the developers' guide (``bench_fs_linear_peers.py``,
``bench_fs_linear_snap.py``)."""

from __future__ import annotations

import importlib
import io
import subprocess
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

__all__ = ["package_at"]


def package_at(commit: str) -> object:
    """``sparsekm`` at ``commit`` as the package ``skm_at_<commit>`` (imports renamed)."""
    name = f"skm_at_{commit}"
    root = HERE / "out" / "packages"
    if not (root / name).exists():
        tar = subprocess.run(["git", "-C", str(HERE.parent), "archive", commit, "src/sparsekm"],
                             capture_output=True, check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(tar)) as tf:
            for member in tf.getmembers():
                if not member.isfile():
                    continue
                rel = Path(member.name).relative_to("src/sparsekm")
                out = root / name / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                data = tf.extractfile(member).read()
                if rel.suffix == ".py":
                    data = data.decode().replace("sparsekm", name).encode()
                out.write_bytes(data)
    sys.path.insert(0, str(root))
    return importlib.import_module(name)
