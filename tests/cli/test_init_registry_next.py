"""The next steps `skillyard init-registry` prints work as printed (issue 35 item 5): run in a fresh folder, they
give a built registry.json and site - the commit the build needs included."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent


@pytest.mark.slow
def test_the_printed_next_steps_build_the_registry(tmp_path):
    env = {**os.environ, "PATH": f"{BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}", "HOME": str(tmp_path / "home"),
           "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "T",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_NOSYSTEM": "1"}
    made = subprocess.run([str(BIN / "skillyard"), "init-registry", "team skills", "--repository", "acme/team-skills"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    [line] = [text for text in made.stdout.splitlines() if text.startswith("next: ")]
    assert "git add" in line and "git commit" in line
    done = subprocess.run(["bash", "-c", line.removeprefix("next: ")], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    folder = tmp_path / "team skills"
    assert (folder / "registry.json").is_file() and (folder / "_site" / "index.html").is_file()
