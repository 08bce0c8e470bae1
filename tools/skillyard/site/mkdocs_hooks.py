"""mkdocs hooks, added to every site build by the builder (not named in mkdocs.yml): pages that `skillyard site build` generated are already sanitised HTML, so skip Markdown for them.

Each generated page is a plain `.md` file whose content is one raw HTML block (meta `skillyard_html: true`). Any
Markdown builder renders it the same, but Python-Markdown re-parses every raw block with an HTML parser, which
was most of the build time at thousands of skills. Without this hook the output is the same, only slower.

Every page also gets a Content-Security-Policy meta (skillyard.site.csp): the theme's inline scripts by hash,
other scripts only from the site, so nothing in a page's content can run even if it slipped past the sanitiser.
"""

from skillyard.site.csp import add_policy

TEMPLATE_CACHE: dict = {"folder": None}  # set by builder.run_mkdocs for one build: where compiled templates stay


def on_env(env, config, files):
    folder = TEMPLATE_CACHE["folder"]
    if folder is not None and env.bytecode_cache is None:
        from skillyard.site.page_cache import template_cache

        env.bytecode_cache = template_cache(env, folder)
    return env


def on_page_markdown(markdown, page, config, files):
    if page.meta.get("skillyard_html") is True:
        if hasattr(page, "skillyard_html"):  # already stashed (a registry still names a copy of these hooks)
            return ""
        page.skillyard_html = markdown
        return ""
    return markdown


def on_page_content(html, page, config, files):
    stashed = getattr(page, "skillyard_html", None)
    return stashed.strip() + "\n" if stashed is not None else html


def on_post_page(output, page, config):
    return add_policy(output, page.content or "")


def on_post_template(output_content, template_name, config):
    """404.html (a theme page with no skill content) gets the same policy."""
    return add_policy(output_content, "") if template_name.endswith(".html") else output_content
