def slugify(text: str) -> str:
    """Lower-case, ASCII letters and digits joined by hyphens."""
    out, dash = [], False
    for ch in text.lower():
        if ch.isascii() and ch.isalnum():
            out.append(ch); dash = False
        elif not dash and out:
            out.append("-"); dash = True
    return "".join(out).strip("-")
