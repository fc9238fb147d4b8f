"""nbc-run --archive STUDY_DIR: the study with its run folders and
comparisons in one STUDY_DIR.tar.gz, with the SHA256 of every file."""
import hashlib
import io
import os
import sys
import tarfile
import time

from nbc_tools.cli import ExitStatus

from .common import BadInput, note, read_json


def archive_study(study_dir):
    """STUDY_DIR.tar.gz next to the study folder: one top folder holding the
    study folder, its runs' folders and its comparisons side by side (as in
    the results folder, so study.csv's run_folder holds) and SHA256SUMS of
    every file (`sha256sum -c SHA256SUMS` in the top folder). Its path."""
    study_dir = os.path.abspath(study_dir)
    record = read_json(os.path.join(study_dir, "study.json"))
    if record is None:
        raise BadInput("--archive: {} has no study.json that nbc-run wrote".format(study_dir))
    folders = [study_dir] + [r["run_dir"] for r in record["runs"] if r.get("run_dir")]
    folders += record.get("comparisons", [])
    top = os.path.basename(study_dir)
    files = []  # (name in the top folder, path)
    seen = set()
    for folder in folders:
        if not os.path.isdir(folder):
            note("--archive: {} is missing: not archived".format(folder))
            continue
        base = os.path.basename(folder.rstrip("/"))
        if base in seen:
            continue
        seen.add(base)
        for root, dirs, names in os.walk(folder):
            dirs.sort()
            for name in sorted(names):
                path = os.path.join(root, name)
                if os.path.isfile(path) and not os.path.islink(path):
                    files.append((os.path.join(base, os.path.relpath(path, folder)), path))
    sums = io.StringIO()
    for name, path in files:
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        sums.write("{}  {}\n".format(digest.hexdigest(), name))
    out = study_dir + ".tar.gz"
    tmp = "{}.tmp.{}".format(out, os.getpid())
    try:
        with tarfile.open(tmp, "w:gz") as tar:
            for name, path in files:
                tar.add(path, arcname=os.path.join(top, name), recursive=False)
            data = sums.getvalue().encode()
            info = tarfile.TarInfo(os.path.join(top, "SHA256SUMS"))
            info.size, info.mtime, info.mode = len(data), int(time.time()), 0o644
            tar.addfile(info, io.BytesIO(data))
        os.replace(tmp, out)
    except OSError as e:
        note("--archive: cannot write {}: {}".format(out, e))
        sys.exit(ExitStatus.FAILURE)
    return out
