"""The licence text matcher (`format/licence_text.py`): exact on normalised text, whatever the layout; a changed
word is not the licence; the frontmatter value reader and the lookup order."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format import licence_text as lt
from skillyard.format.licence_text import NOASSERTION, detect, find, spdx_of_value

COMMON = Path("/usr/share/common-licenses")
HOLDERS = st.lists(st.sampled_from(["Jane", "Doe", "Acme", "Inc", "Foundation", "the", "Regents", "2026"]),
                   min_size=1, max_size=5).map(" ".join)


def render(spdx: str, holder: str, seed: int, template: str | None = None) -> str:
    """The licence as an author might lay it out (chosen by `seed`): a title and copyright line, holes filled with
    `holder`, list numbers, words wrapped at a random width, random case per line, punctuation after some words."""
    rnd = random.Random(seed)
    words = []
    number = 0
    for word in (template or lt.SHORT[spdx]).split(" "):
        if word == "*":
            words += holder.split(" ")
        elif word == "#":
            number += 1
            words.append(f"{number}.")
        else:
            words.append(word + rnd.choice(["", "", "", ",", ";", ":"]))
    lines, line = [], []
    width = rnd.randint(40, 100)
    for word in words:
        if line and sum(len(w) + 1 for w in line) + len(word) > width:
            lines.append(" ".join(line))
            line = []
        line.append(word)
    lines.append(" ".join(line))
    lines = [rnd.choice([str.upper, str.capitalize, str.lower])(x) for x in lines]
    indent = rnd.choice(["", "    ", "\t"])
    title = rnd.choice(["", f"{spdx} License\n\n", f"The {spdx} License ({spdx})\n\n"])
    return title + f"Copyright (c) 2026 {holder}\n\n" + "\n".join(indent + x for x in lines) + "\n"


@settings(max_examples=300, deadline=None)
@given(spdx=st.sampled_from(sorted(lt.SHORT)), holder=HOLDERS, seed=st.integers(0, 2**32))
def test_any_layout_of_a_short_licence_is_that_licence(spdx, holder, seed):
    assert detect(render(spdx, holder, seed)) == spdx


@settings(max_examples=300, deadline=None)
@given(spdx=st.sampled_from(sorted(lt.SHORT)), holder=HOLDERS, seed=st.integers(0, 2**32), where=st.floats(0, 0.999),
       change=st.sampled_from(["drop", "swap", "add"]))
def test_a_changed_word_is_not_that_licence(spdx, holder, seed, where, change):
    words = lt.SHORT[spdx].split(" ")
    # a word of the fixed text, not next to a free span or list number (words there could belong to either)
    fixed = [i for i, w in enumerate(words) if w not in "*#" and all(words[j] not in "*#" for j in
                                                                     range(max(0, i - 1), min(len(words), i + 2)))
             and i >= 3]  # the first words are left alone: a title before the text is free
    i = fixed[int(where * len(fixed))]
    if change == "drop":
        del words[i]
    elif change == "swap":
        words[i] = "zebra"
    else:
        words.insert(i, "notwithstanding")
    assert detect(render(spdx, holder, seed, " ".join(words))) != spdx


@pytest.mark.parametrize("name,spdx", [("Apache-2.0", "Apache-2.0"), ("GPL-3", "GPL-3.0"), ("LGPL-3", "LGPL-3.0"),
                                       ("MPL-2.0", "MPL-2.0"), ("CC0-1.0", "CC0-1.0"), ("BSD", "BSD-3-Clause"),
                                       ("GPL-2", None), ("LGPL-2.1", None), ("Artistic", None)])
def test_the_canonical_long_texts(name, spdx):
    path = COMMON / name
    if not path.is_file():
        pytest.skip(f"{path} is absent (Debian's common-licenses package holds the canonical texts)")
    text = path.read_text(encoding="utf-8")
    assert detect(text) == spdx
    if spdx in lt.LONG:  # a short licence must be the whole text: no appendix
        # re-indented and re-wrapped, with an appendix after it: still exact
        wrapped = "\n".join("   " + line.strip() for line in text.splitlines()) + "\n\nAPPENDIX: notes.\n"
        assert detect(wrapped) == spdx
        # one word of the terms changed: no longer that licence
        changed = text.replace(" any ", " some ", 1)
        assert changed != text and detect(changed) is None


def test_anthropic_licence_file_shapes():
    """Anthropic's proprietary terms and a notice that points elsewhere are not licences."""
    assert detect("© 2025 Anthropic, PBC. All rights reserved.\n\nLICENSE: Use of these materials is governed by "
                  "your agreement with Anthropic.\n") is None
    assert detect("Apache License 2.0\n\nThis skill contains original content.\nSee repository root LICENSE for "
                  "full terms.\n") is None
    assert detect("") is None and detect("x" * (lt.MAX_TEXT + 1)) is None


@pytest.mark.parametrize("value,spdx", [
    ("MIT", "MIT"), ("mit", "MIT"), ("MIT License", "MIT"), ("Apache License 2.0", "Apache-2.0"),
    ("Apache-2.0 license", "Apache-2.0"), ("Apache License, Version 2.0", "Apache-2.0"),
    ("BSD-3-Clause license", "BSD-3-Clause"), ("3-clause BSD license", "BSD-3-Clause"), ("GPLv3 license", "GPL-3.0"),
    ("Apache-2.0 OR MIT", "Apache-2.0 OR MIT"), ("mit or apache-2.0", "MIT OR Apache-2.0"), ("MIT AND (Apache-2.0 OR BSD-2-Clause)",
                                                 "MIT AND (Apache-2.0 OR BSD-2-Clause)"),
    ("LicenseRef-Acme", "LicenseRef-Acme"), ("LICENSE", None), ("Complete terms in LICENSE.txt", None),
    ("Unknown", None), ("Proprietary", None), ("https://github.com/x/y/blob/main/LICENSE", None), ("", None)])
def test_frontmatter_values(value, spdx):
    assert spdx_of_value(value) == spdx


@pytest.mark.parametrize("value,name", [
    ("LICENSE", "LICENSE"), ("See LICENSE file", "LICENSE"), ("Complete terms in LICENSE.txt", "LICENSE.txt"),
    ("Proprietary. LICENSE.txt has complete terms", "LICENSE.txt"), ("see license.md", "license.md"),
    ("CeCILL FREE SOFTWARE LICENSE AGREEMENT", None), ("This skill is provided under the MIT License.", None),
    ("https://github.com/x/y/blob/main/LICENSE", None), ("Unknown", None)])
def test_which_values_name_a_file(value, name):
    assert lt.file_named(value) == name


@given(st.text(max_size=300))
def test_the_value_reader_never_fails_and_gives_a_pointer_safe_expression(value):
    spdx = spdx_of_value(value)
    assert spdx is None or re.fullmatch(r"[A-Za-z0-9.+() -]{1,200}", spdx)


MIT = lt.SHORT["MIT"]  # the normalised words are a valid MIT text on their own


def test_the_lookup_order():
    folder_file = {"SKILL.md": b"", "LICENSE.txt": MIT.encode()}
    root = {"LICENSE": MIT.encode()}
    assert find("Apache-2.0", folder_file, "GPL-3.0", root).spdx == "Apache-2.0"
    found = find("Complete terms in LICENSE.txt", folder_file, "GPL-3.0", root)
    assert (found.spdx, found.warning) == ("MIT", None) and "skill folder" in found.source
    assert find(None, folder_file, "GPL-3.0", root).source == "LICENSE.txt in the skill folder"
    assert find(None, {"SKILL.md": b""}, "GPL-3.0", root).spdx == "GPL-3.0"
    assert find(None, {"SKILL.md": b""}, None, root).source == "LICENSE at the repository root"
    # a frontmatter "LICENSE" with no such file in the folder means the repository's
    assert find("LICENSE", {"SKILL.md": b""}, None, root).source.startswith("LICENSE in the repository root")
    # a statement the lookup cannot read is NOASSERTION, never the next place's licence
    for frontmatter, folder in (("Proprietary. LICENSE.txt has complete terms", {"LICENSE.txt": b"All rights."}),
                                ("Unknown", {}), (None, {"COPYING": b"Ask me."})):
        found = find(frontmatter, folder, "MIT", root)
        assert found.spdx == NOASSERTION and found.warning
    found = find(None, {"SKILL.md": b""}, None, {})
    assert (found.spdx, found.source) == (NOASSERTION, "nowhere") and "no licence found" in found.warning


UPSTREAM = Path(__file__).resolve().parents[2].parent / "shared" / "upstream"


def test_the_real_upstream_root_licences_are_recognised():
    """The root LICENSE of each real upstream repository (../shared/upstream, the pinned tarballs) is the licence
    GitHub reports for it."""
    import json

    from skillyard.format import tarball

    if not (UPSTREAM / "index.json").is_file():
        pytest.skip(f"{UPSTREAM} is absent (a user's clone): the real trees are read where ../shared exists")
    expected = {"getsentry/skills": "Apache-2.0", "obra/superpowers": "MIT", "hashicorp/agent-skills": "MPL-2.0",
                "expo/skills": "MIT"}
    seen = {}
    for repo in json.loads((UPSTREAM / "index.json").read_text())["repositories"]:
        slug = repo["repository"]
        pin = repo["pin"]
        archive = tarball.read_archive((UPSTREAM / slug.replace("/", "+") / pin["tarball"]).read_bytes())
        seen[slug] = detect(archive.files["LICENSE"][0].decode("utf-8"))
    assert seen == expected


@pytest.mark.parametrize("value", ["NOASSERTION", "noassertion", "NONE", " NOASSERTION "])
def test_noassertion_is_never_redistributed(value):
    from skillyard.format.licences import decide

    decision = decide(value)
    assert not decision.allowed and "NOASSERTION" in decision.reason


def test_which_files_are_licence_files():
    names = ["LICENSE", "LICENSE.txt", "licence.md", "COPYING", "LICENSE-MIT", "license_check.py",
             "license-checker.js", "LICENSES/MIT.txt", "SKILL.md", "docs/LICENSE"]
    assert lt.licence_files(names) == ["COPYING", "LICENSE", "licence.md", "LICENSE-MIT", "LICENSE.txt"]
