"""Behaviour of skills/markdown-link-check/scripts/md_links.py on a small docs tree."""

from __future__ import annotations

import json


def write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def make_docs(root):
    write(root, "index.md", "\n".join([
        "# Home",
        "See [install](guide/install.md#getting-started) and [the API](api.md#missing).",
        "![logo](img/Logo.png) and ![ok](img/ok.png)",
        "Read [more][guide] or [this][nowhere].",
        "`[not a link](gone.md)`",
        "```",
        "[also not](gone.md)",
        "```",
        '<a href="guide/install.md#faq-1">faq</a> [mail](mailto:a@b.c) [web](https://example.invalid/x)',
        "[up](../outside.md) [self](#home) [spaces](guide/my%20page.md)",
        "",
        "[guide]: guide/install.md",
    ]))
    write(root, "api.md", "# API\n\nText\n")
    write(root, "guide/install.md", "Getting Started!\n================\n\n## FAQ\n\n## FAQ\n\n<a id=\"custom\"></a>\n")
    write(root, "guide/my page.md", "# Page\n")
    write(root, "img/logo.png", "png")
    write(root, "img/ok.png", "png")


def test_finds_exactly_the_broken_links(run, tmp_path):
    make_docs(tmp_path)
    done = run("markdown-link-check", "md_links.py", str(tmp_path), "--json", "--list-external")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["files_checked"] == 4
    broken = {(b["file"], b["line"], b["target"]): b["problem"] for b in report["broken"]}
    assert broken == {
        ("index.md", 2, "api.md#missing"): "no heading or id matches #missing",
        ("index.md", 3, "img/Logo.png"): (
            "letter case differs from the file on disk (img/logo.png); breaks on case-sensitive systems"),
        ("index.md", 4, "[nowhere]"): "undefined reference label",
        ("index.md", 10, "../outside.md"): "points outside the checked folder",
    }
    assert report["external"] == [{"file": "index.md", "line": 9, "target": "https://example.invalid/x"}]


def test_clean_tree_passes_and_text_output(run, tmp_path):
    write(tmp_path, "a.md", "# Intro: Über *alles*\n[b](b.md#section-two) [me](#intro-über-alles)\n")
    write(tmp_path, "b.md", "## Section Two\n")
    done = run("markdown-link-check", "md_links.py", str(tmp_path))
    assert done.returncode == 0, done.stdout
    assert "2 file(s) checked, 0 broken" in done.stderr
    write(tmp_path, "c.md", "[x](nope.md)\n")
    done = run("markdown-link-check", "md_links.py", str(tmp_path))
    assert done.returncode == 1
    assert done.stdout == "c.md:1: nope.md: file not found\n"
    assert run("markdown-link-check", "md_links.py", str(tmp_path), "--no-anchors").returncode == 1


def test_missing_root_exits_2(run, tmp_path):
    done = run("markdown-link-check", "md_links.py", str(tmp_path / "nope"))
    assert done.returncode == 2 and "does not exist" in done.stderr
