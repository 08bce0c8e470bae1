"""The one name -> slug rule (format/slug.py) gives what each of its three former copies gave."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format.slug import ascii_slug, slugify

NAMES = st.text(alphabet=st.sampled_from("aZ09-_ .é É ß ﬁ ２ 文档/\t\x00"), max_size=90) | st.text(max_size=90)


def former_copy(text: str) -> str:
    """runtime/discovery.py slugify and registry/init.py slugify, as they were (both cut at 64)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:64].strip("-")


def former_install_core(text: str) -> str:
    """client/install.py folder_name's slug before its own cut at a hyphen."""
    ascii_name = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", ascii_name).strip("-")


@settings(max_examples=500, deadline=None)
@given(NAMES)
def test_the_shared_rule_equals_its_former_copies(text):
    assert slugify(text) == former_copy(text)
    assert ascii_slug(text) == former_install_core(text)


def test_examples_and_the_users_of_the_rule():
    from skillyard.registry.init import slugify as init_slugify
    from skillyard.runtime.discovery import slugify as discovery_slugify

    assert init_slugify is slugify and discovery_slugify is slugify
    assert slugify("  Café PDF_Tools!! ") == "cafe-pdf-tools" and slugify("文档助手") == ""
    assert slugify("a" * 63 + "-b") == "a" * 63 and len(ascii_slug("x-" * 50)) == 99
