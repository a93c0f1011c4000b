"""scripts/device/tree_id.sh, which names the files a device call ran (the machine's .git can lag
the working tree it is sent): the id of a working tree equals its commit's exactly when the files
are the commit's, whatever their modes and whatever git ignores. Run on a real repository here."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "device" / "tree_id.sh"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, check=True,
                          capture_output=True, text=True).stdout.strip()


def tree_id(repo: Path, *commit: str) -> str:
    done = subprocess.run(["bash", str(repo / "scripts" / "tree_id.sh"), *commit], cwd=repo, check=False,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.strip()) == 16, done.stdout
    return done.stdout.strip()


def test_the_working_trees_id_is_its_commits_until_a_file_changes(tmp_path):
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(SCRIPT, repo / "scripts" / "tree_id.sh")
    (repo / "a kernel.cu").write_text("__global__ void k() {}\n")
    (repo / ".gitignore").write_text("/.whl/\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "first")
    first = git(repo, "rev-parse", "HEAD")
    assert tree_id(repo) == tree_id(repo, first)

    (repo / ".whl").mkdir()  # ignored files (the carried wheels) are not the code
    (repo / ".whl" / "x.whl").write_bytes(b"wheel")
    (repo / "a kernel.cu").chmod(0o755)  # nor is a mode the copy may not keep
    assert tree_id(repo) == tree_id(repo, first)

    (repo / "new.py").write_text("x = 1\n")  # an untracked file travels, so it counts
    assert tree_id(repo) != tree_id(repo, first)
    (repo / "new.py").unlink()
    (repo / "a kernel.cu").write_text("__global__ void k() { }\n")
    changed = tree_id(repo)
    assert changed != tree_id(repo, first)
    assert git(repo, "diff", "--cached", "--name-only") == ""  # the script stages nothing in the repo's own index

    git(repo, "commit", "-qam", "second")
    assert tree_id(repo, "HEAD") == changed != tree_id(repo, first)
