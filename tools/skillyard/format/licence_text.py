"""Which licence a skill states, read where authors put it: a frontmatter `license` value, or a licence file's text.

Licence files are recognised by an exact matcher on normalised text, never by guessing from a few words:
`normalise` folds case and Unicode compatibility forms, drops copyright lines (`Copyright (c) 2025 …`, `© …`) and
URL schemes, and turns every run of other characters into one space, so layout, indentation, quotes and list
markers do not matter. Then
- a short licence (MIT, MIT-0, ISC, 0BSD, BSD-2-Clause, BSD-3-Clause, Unlicense) must be the whole text, word for
  word, after an optional title of a few words; the only free spans are the holder names its template leaves open;
- a long licence (Apache-2.0, MPL-2.0, GPL-3.0, LGPL-3.0, CC0-1.0) must contain its terms word for word: the
  sha256 of the normalised span from its first words to its last (`LONG`) must equal the canonical text's, so a
  title, an appendix or a filled-in "how to apply" section may surround it;
- AGPL-3.0 and CC-BY-4.0, whose canonical texts this project does not hold, are recognised by their exact title
  sentence together with their closing sentence.
Anything else is not recognised (None): unknown means NOASSERTION, never a near match.
Pure and bounded: texts over MAX_TEXT characters are not read.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass

MAX_TEXT = 200_000
# A copyright line: "Copyright (c) 2025 …", "Copyright 2025 …", "Copyright Jane Doe", "© …", "(c) 2025 …" (not a
# wrapped sentence that starts with "copyright notice": a holder's name starts with a capital letter).
# An upper-case "COPYRIGHT" needs a (C), © or year after it: a wrapped warranty line may start "COPYRIGHT HOLDERS".
_COPYRIGHT = re.compile(r"^[ \t>*#-]*(?:Copyright[ \t]*(?:\([Cc]\)|©|\d{4}|\[|[A-Z])|(?:copyright|COPYRIGHT)[ \t]*"
                        r"(?:\([Cc]\)|©|\d{4})|\([Cc]\)[ \t]*\d|©)"
                        r".*$", re.M)
_SCHEME = re.compile(r"https?://")
_OTHER = re.compile(r"[^a-z0-9]+")


def normalise(text: str) -> str:
    """Lower-case words separated by single spaces, without copyright lines or URL schemes."""
    text = _COPYRIGHT.sub(" ", unicodedata.normalize("NFKC", text[:MAX_TEXT])).lower()
    text = _SCHEME.sub("", text)
    return _OTHER.sub(" ", text).strip()


# Short licences as normalised templates: `*` is a free span of 1..HOLE words (a holder's name), `#` an optional
# list number or letter. A title of at most TITLE words may come first.
HOLE, TITLE = 30, 8
_WARRANTY_MIT = ("the software is provided as is without warranty of any kind express or implied including but not "
                 "limited to the warranties of merchantability fitness for a particular purpose and noninfringement "
                 "in no event shall the authors or copyright holders be liable for any claim damages or other "
                 "liability whether in an action of contract tort or otherwise arising from out of or in connection "
                 "with the software or the use or other dealings in the software")
_GRANT_MIT = ("permission is hereby granted free of charge to any person obtaining a copy of this software and "
              "associated documentation files the software to deal in the software without restriction including "
              "without limitation the rights to use copy modify merge publish distribute sublicense and or sell "
              "copies of the software and to permit persons to whom the software is furnished to do so")
_ISC_TAIL = ("the software is provided as is and * disclaims all warranties with regard to this software "
             "including all implied warranties of merchantability and fitness in no event shall * be liable "
             "for any special direct indirect or consequential damages or any damages whatsoever resulting from loss "
             "of use data or profits whether in an action of contract negligence or other tortious action arising "
             "out of or in connection with the use or performance of this software")
_BSD_HEAD = ("redistribution and use in source and binary forms with or without modification are permitted provided "
             "that the following conditions are met # redistributions of source code must retain the above "
             "copyright notice this list of conditions and the following disclaimer # redistributions in binary "
             "form must reproduce the above copyright notice this list of conditions and the following disclaimer "
             "in the documentation and or other materials provided with the distribution")
_BSD_TAIL = ("this software is provided by * as is and any express or implied warranties including but not limited "
             "to the implied warranties of merchantability and fitness for a particular purpose are disclaimed in no "
             "event shall * be liable for any direct indirect incidental special exemplary or consequential damages "
             "including but not limited to procurement of substitute goods or services loss of use data or profits "
             "or business interruption however caused and on any theory of liability whether in contract strict "
             "liability or tort including negligence or otherwise arising in any way out of the use of this software "
             "even if advised of the possibility of such damage")
SHORT = {
    "MIT": f"{_GRANT_MIT} subject to the following conditions the above copyright notice and this permission notice "
           f"shall be included in all copies or substantial portions of the software {_WARRANTY_MIT}",
    "MIT-0": f"{_GRANT_MIT} {_WARRANTY_MIT}",
    "ISC": "permission to use copy modify and or distribute this software for any purpose with or without fee is "
           "hereby granted provided that the above copyright notice and this permission notice appear in all copies "
           + _ISC_TAIL,
    "0BSD": "permission to use copy modify and or distribute this software for any purpose with or without fee is "
            "hereby granted " + _ISC_TAIL,
    "BSD-2-Clause": f"{_BSD_HEAD} {_BSD_TAIL}",
    "BSD-3-Clause": f"{_BSD_HEAD} # neither the name of * may be used to endorse or promote products derived from "
                    f"this software without specific prior written permission {_BSD_TAIL}",
    "Unlicense": "this is free and unencumbered software released into the public domain anyone is free to copy "
                 "modify publish use compile sell or distribute this software either in source code form or as a "
                 "compiled binary for any purpose commercial or non commercial and by any means in jurisdictions "
                 "that recognize copyright laws the author or authors of this software dedicate any and all "
                 "copyright interest in the software to the public domain we make this dedication for the benefit "
                 "of the public at large and to the detriment of our heirs and successors we intend this dedication "
                 "to be an overt act of relinquishment in perpetuity of all present and future rights to this "
                 "software under copyright law the software is provided as is without warranty of any kind express "
                 "or implied including but not limited to the warranties of merchantability fitness for a particular "
                 "purpose and noninfringement in no event shall the authors be liable for any claim damages or other "
                 "liability whether in an action of contract tort or otherwise arising from out of or in connection "
                 "with the software or the use or other dealings in the software for more information please refer "
                 "to unlicense org",
}


def _pattern(template: str) -> re.Pattern:
    parts = []
    for word in template.split(" "):
        if word == "*":
            parts.append(rf"(?:[a-z0-9]+ ){{1,{HOLE}}}")
        elif word == "#":
            parts.append(r"(?:(?:[0-9]{1,2}|[a-z]|i{1,3}|iv) )?")
        else:
            parts.append(re.escape(word) + " ")
    title = rf"(?:[a-z0-9]+ ){{0,{TITLE}}}?"
    return re.compile(title + "".join(parts))


_SHORT_PATTERNS = {spdx: _pattern(template) for spdx, template in SHORT.items()}


@dataclass(frozen=True)
class Long:
    """A long licence: the sha256 of the normalised span from `first` through `last` in its canonical text (one per
    published wording)."""

    first: str
    last: str
    sha256: tuple[str, ...]


LONG = {
    # apache.org's text ("submitted to Licensor"), and a widespread copy reading "submitted to the Licensor" (the
    # one getsentry/skills ships)
    "Apache-2.0": Long("terms and conditions for use reproduction and distribution", "end of terms and conditions",
                       ("d8221a4f10c01c6fa5390685929a5ce31d7264a024162fd3dd4d805c57ce0f43",
                        "31297b05688299a878ea544c5c64ca914e72d5b1c55c9c33cb937a06d2a7a7ee")),
    "GPL-3.0": Long("gnu general public license version 3 29 june 2007", "end of terms and conditions",
                    ("ac6b52d57c0104e687039148f7b8e370e04c9bb5705bb786f8ef814eb65e8636",)),
    "LGPL-3.0": Long("gnu lesser general public license version 3 29 june 2007",
                     "permanent authorization for you to choose that version for the library",
                     ("aae2b222477171fb64e298e7965e768a9a6f85320646b266c94399ac029d42be",)),
    "MPL-2.0": Long("mozilla public license version 2 0",
                    "this source code form is incompatible with secondary licenses as defined by the mozilla public "
                    "license v 2 0",
                    ("b59ad31436b35a95a00cff48e84c1f014339f59fac784c1935fc6f7dc34abf70",)),
    "CC0-1.0": Long("creative commons legal code cc0 1 0 universal",
                    "has no duty or obligation with respect to this cc0 or use of the work",
                    ("96bdc7f63190fb4bd1ae584b890300ed7517d858b34c945642a3b9b2f1612a5f",)),
}
# Title and closing sentence, for the two licences whose canonical text is not held here.
ANCHORED = {
    "AGPL-3.0": ("gnu affero general public license version 3 19 november 2007", "end of terms and conditions"),
    "CC-BY-4.0": ("by exercising the licensed rights defined below you accept and agree to be bound by the terms and "
                  "conditions of this creative commons attribution 4 0 international public license",
                  "creative commons may be contacted at creativecommons org"),
}


def span(normalised: str, first: str, last: str) -> str | None:
    """The text from the first occurrence of `first` through the first `last` after it, or None."""
    start = (" " + normalised + " ").find(" " + first + " ")
    if start < 0:
        return None
    end = normalised.find(last, start + len(first))
    return normalised[start:end + len(last)] if end >= 0 else None


def detect(text: str) -> str | None:
    """The SPDX ID of the licence `text` is, or None when it is not one of the texts this module knows exactly."""
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        return None
    words = normalise(text)
    if not words:
        return None
    line = words + " "
    for spdx, pattern in _SHORT_PATTERNS.items():
        if pattern.fullmatch(line):
            return spdx
    for spdx, long in LONG.items():
        found = span(words, long.first, long.last)
        if found is not None and hashlib.sha256(found.encode()).hexdigest() in long.sha256:
            return spdx
    for spdx, (first, last) in ANCHORED.items():
        if span(words, first, last) is not None:
            return spdx
    return None


# ------------------------------------------------------------------------------------------- where licences are
NOASSERTION = "NOASSERTION"
NOWHERE = "nowhere"  # `Found.source` when upstream states no licence anywhere the lookup reads
# SPDX IDs a frontmatter value may name as they are (compared without case); `LicenseRef-…` is accepted too.
KNOWN_IDS = tuple(sorted({*SHORT, *LONG, *ANCHORED, "0BSD", "AFL-3.0", "AGPL-3.0-only", "AGPL-3.0-or-later",
                          "Apache-1.1", "Artistic-2.0", "BlueOak-1.0.0", "BSD-1-Clause", "BSL-1.0", "CC-BY-3.0",
                          "CC-BY-NC-4.0", "CC-BY-NC-SA-4.0", "CC-BY-ND-4.0", "CC-BY-SA-3.0", "CC-BY-SA-4.0",
                          "EPL-1.0", "EPL-2.0", "EUPL-1.2", "GPL-2.0", "GPL-2.0-only", "GPL-2.0-or-later",
                          "GPL-3.0-only", "GPL-3.0-or-later", "LGPL-2.1", "LGPL-2.1-only", "LGPL-2.1-or-later",
                          "LGPL-3.0-only", "LGPL-3.0-or-later", "MPL-1.1", "MulanPSL-2.0", "OFL-1.1", "PostgreSQL",
                          "UPL-1.0", "WTFPL", "X11", "Zlib"}))
_BY_LOWER = {i.lower(): i for i in KNOWN_IDS}
# Licence names written as prose ("MIT License", "Apache License 2.0", "3-clause BSD license"), normalised and
# without the words license/licence/the/version/v: the SPDX ID they name.
_NAMES = {_OTHER.sub(" ", i.lower()).strip(): i for i in KNOWN_IDS} | {
    "apache 2": "Apache-2.0", "apache": None, "bsd 3": "BSD-3-Clause", "3 clause bsd": "BSD-3-Clause",
    "new bsd": "BSD-3-Clause", "bsd 2": "BSD-2-Clause", "2 clause bsd": "BSD-2-Clause", "simplified bsd": "BSD-2-Clause",
    "gplv3": "GPL-3.0", "gpl 3": "GPL-3.0", "gplv2": "GPL-2.0", "lgplv3": "LGPL-3.0", "agplv3": "AGPL-3.0",
    "mozilla public 2 0": "MPL-2.0", "gnu general public 3": "GPL-3.0", "gnu general public 3 0": "GPL-3.0",
    "creative commons attribution 4 0": "CC-BY-4.0", "cc by 4 0": "CC-BY-4.0", "public domain": None,
}
# A file a value names: one with a suffix anywhere in it ("Complete terms in LICENSE.txt", "Proprietary.
# LICENSE.txt has complete terms"), or a bare LICENSE/COPYING that is the whole value ("LICENSE", "See LICENSE
# file") -- not the word inside prose ("CeCILL FREE SOFTWARE LICENSE AGREEMENT").
_FILE_WITH_SUFFIX = re.compile(r"(?<![\w/.-])((?:licen[cs]e|copying)(?:-[a-z0-9]+)?\.[a-z0-9]+)(?![\w/-])", re.I)
_FILE_BARE = re.compile(r"(?:see\s+)?(?:the\s+)?((?:LICEN[CS]E|COPYING)(?:-[A-Za-z0-9]+)?)(?:\s+file)?\.?", re.I)
_SPDX_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-]*\+?")


@dataclass(frozen=True)
class Found:
    """The licence decided for a skill: an SPDX expression or NOASSERTION, where it came from, and a warning
    (None when the licence was determined)."""

    spdx: str
    source: str
    warning: str | None = None


def spdx_of_value(value: str) -> str | None:
    """The SPDX expression a frontmatter `license` value states: an expression of known IDs (`MIT`,
    `Apache-2.0 OR MIT`, `LicenseRef-X`) in their canonical case, or a licence named in prose (`MIT License`,
    `Apache License, Version 2.0`); None for anything else (a file name, a sentence, a URL)."""
    text = value.strip()
    if not text or len(text) > 200:
        return None
    words = re.split(r"(\s+|[()])", text)
    out, ids = [], 0
    for word in words:
        if not word or word.isspace() or word in ("(", ")"):
            out.append(word)
        elif word.upper() in ("AND", "OR", "WITH"):  # authors write "MIT or Apache-2.0"; SPDX wants upper case
            out.append(word.upper())
        elif _SPDX_WORD.fullmatch(word) and (word.lower().removesuffix("+") in _BY_LOWER
                                             or word.startswith("LicenseRef-")):
            base = word.removesuffix("+")
            out.append(_BY_LOWER.get(base.lower(), base) + ("+" if word.endswith("+") else ""))
            ids += 1
        else:
            out = []
            break
    if out and ids:
        return "".join(out).strip()
    if "://" in text:
        return None
    key = " ".join(w for w in _OTHER.sub(" ", text.lower()).split() if w not in ("license", "licence", "the",
                                                                                  "version", "v", "licensed"))
    return _NAMES.get(key)


def file_named(value: str) -> str | None:
    """The licence file a frontmatter value points at ("LICENSE", "Complete terms in LICENSE.txt"), or None."""
    if "://" in value:
        return None
    match = _FILE_BARE.fullmatch(value.strip()) or _FILE_WITH_SUFFIX.search(value)
    return match.group(1) if match else None


# LICENSE, LICENCE, COPYING, with an optional `-NAME` and a text suffix: LICENSE.txt, LICENSE-MIT, COPYING.md
# (not license_check.py or license-checker.js, which are code).
_LICENCE_FILE = re.compile(r"(?:licen[cs]e|copying)(?:-[a-z0-9]+)?(?:\.(?:txt|md|markdown|rst))?", re.I)


def licence_files(paths) -> list[str]:
    """The licence files directly in a folder (paths relative to it), shortest name first."""
    return sorted((p for p in paths if "/" not in p and _LICENCE_FILE.fullmatch(p)), key=lambda p: (len(p), p))


def _by_name(files: dict[str, bytes], name: str) -> str | None:
    wanted = name.lower()
    return next((p for p in sorted(files) if p.lower() == wanted), None)


def _text(data: bytes) -> str:
    return data[:MAX_TEXT].decode("utf-8", "replace")


def find(frontmatter: object, folder: dict[str, bytes], repo_spdx, root: dict[str, bytes]) -> Found:
    """The skill's licence, looked for where authors put it, in this order: (1) the frontmatter `license` (an SPDX
    expression or licence name; a value that names a file is followed to that file, in the skill folder or else at
    the repository root); (2) a `LICENSE*`/`COPYING*` file in the skill folder; (3) the repository's (GitHub's API
    `license.spdx_id`, then a root `LICENSE*`/`COPYING*` file). The first place that says something decides: a
    statement that cannot be read as a licence this module knows gives NOASSERTION with a warning, never the next
    place's licence (a skill that states its own terms is not relicensed by its repository's). `folder` and `root`:
    {path: bytes} of the skill folder and of the repository root's licence files; `repo_spdx` the API's licence
    (or None), or a function giving it, asked only when the skill itself states nothing (verify's request)."""
    if isinstance(frontmatter, str) and frontmatter.strip():
        value = frontmatter.strip()
        shown = value if len(value) <= 80 else value[:77] + "..."
        spdx = spdx_of_value(value)
        if spdx:
            return Found(spdx, "the skill's frontmatter `license`")
        name = file_named(value)
        if name:
            for where, files in (("the skill folder", folder), ("the repository root", root)):
                path = _by_name(files, name)
                if path is not None:
                    spdx = detect(_text(files[path]))
                    if spdx:
                        return Found(spdx, f"{path} in {where} (named by the frontmatter `license`)")
                    return Found(NOASSERTION, f"{path} in {where}",
                                 f"the frontmatter `license` ({shown!r}) points at {path}, whose text is not a "
                                 "licence Skillyard recognises")
        else:
            return Found(NOASSERTION, "the skill's frontmatter `license`",
                         f"the frontmatter `license` ({shown!r}) is neither an SPDX expression nor a licence name "
                         "Skillyard knows")
    own = licence_files(folder)
    for path in own:
        spdx = detect(_text(folder[path]))
        if spdx:
            return Found(spdx, f"{path} in the skill folder")
    if own:
        return Found(NOASSERTION, f"{own[0]} in the skill folder",
                     f"the skill folder's {', '.join(own)} is not a licence text Skillyard recognises")
    if callable(repo_spdx):
        repo_spdx = repo_spdx()
    if repo_spdx:
        return Found(repo_spdx, "the repository's licence (GitHub API)")
    for path in licence_files(root):
        spdx = detect(_text(root[path]))
        if spdx:
            return Found(spdx, f"{path} at the repository root")
    return Found(NOASSERTION, NOWHERE,
                 "no licence found: no frontmatter `license`, no LICENSE or COPYING file in the skill folder, none "
                 "that GitHub's API reports or Skillyard recognises at the repository root")
