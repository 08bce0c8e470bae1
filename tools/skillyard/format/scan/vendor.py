"""Whose host a URL is on: the vendor judgement behind "a vendor's installer from its own host is a warning".

The judgement reads the URL's own host, never the words around it. A host is the vendor's when
- it is on a well-known installer host (`context.VENDOR_HOSTS`, path-scoped where the host is shared),
- its registered domain is a known software publisher's (`PUBLISHERS`: `release.solana.com` -> `solana.com`),
- on a code host (`github.com`, `raw.githubusercontent.com` …) its owner, the first path segment, is a known
  publisher's organisation (`PUBLISHER_OWNERS`) or the owner of the skill's declared repository,
- or its registered domain is the one of the skill's declared `homepage` / `repository` (skill.yaml, the
  frontmatter or its `metadata`): the skill installs its own product from its own site.
What a skill's text or name says never counts: "Install the Nextflow helper" next to `nextflow-cdn.example` is a
lure, not a vendor. Shared hosting (`*.github.io`, `*.vercel.app`, object storage, tunnels) is nobody's registered
domain: only a declared homepage on that very host counts there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Registered domains of software publishers whose documented installs download from their own site.
PUBLISHERS = frozenset("""
rust-lang.org rustup.rs astral.sh brew.sh docker.com bun.sh deno.land deno.com python-poetry.org pnpm.io sdkman.io
ollama.com claude.ai anthropic.com pyenv.run mise.run jdx.dev volta.sh tailscale.com fly.io starship.rs helm.sh
paradigm.xyz pulumi.com doppler.com dot.net k3s.io opencode.ai cursor.com determinate.systems nixos.org rvm.io
ohmyz.sh supabase.com vercel.com railway.app railway.com expo.dev jenkins.io sentry.io sentry.dev sentry-cdn.com
hashicorp.com pytorch.org getcomposer.org julialang.org chocolatey.org nextflow.io haskell.org nodesource.com
nodejs.org go.dev golang.org microsoft.com dot.net visualstudio.com cloudflare.com proton.me solana.com anza.xyz
inference.sh stripe.com heroku.com netlify.com firebase.tools anaconda.com conda.io mamba.pm prefix.dev pixi.sh
gradle.org k8s.io kubernetes.io istio.io linkerd.io goteleport.com zerotier.com yarnpkg.com datadoghq.com
newrelic.com grafana.com elastic.co influxdata.com mongodb.com mongodb.org postgresql.org redis.io cockroachlabs.com
planetscale.com neon.tech turso.tech tur.so render.com digitalocean.com ngrok.com opentofu.org aquasec.com
sigstore.dev snyk.io semgrep.dev socket.dev gitguardian.com just.systems ziglang.org nim-lang.org ocaml.org
elixir-lang.org erlang.org crystal-lang.org swift.org dart.dev flutter.dev android.com jetbrains.com 1password.com
agilebits.com bitwarden.com keybase.io gnupg.org openssl.org letsencrypt.org eff.org caddyserver.com nginx.org
apache.org python.org ruby-lang.org rubygems.org php.net r-project.org posit.co rstudio.com quarto.org
mathworks.com podman.io lima-vm.io orbstack.dev multipass.run vagrantup.com virtualbox.org rancher.com k3d.io
tilt.dev skaffold.dev argoproj.io fluxcd.io dagger.io earthly.dev nx.dev astro.build tauri.app bazel.build
cmake.org llvm.org gnu.org msys2.org scoop.sh macports.org snapcraft.io flatpak.org ubuntu.com debian.org
fedoraproject.org archlinux.org openai.com huggingface.co replicate.com modal.com lmstudio.ai warp.dev zed.dev
atuin.sh ohmyposh.dev nushell.sh chezmoi.io asdf-vm.com moonrepo.dev jetify.com devenv.sh direnv.net flox.dev
gitpod.io coder.com meilisearch.com duckdb.org sqlite.org clickhouse.com surrealdb.com edgedb.com pingcap.com
nats.io redpanda.com vector.dev fluentbit.io prometheus.io posthog.com infisical.com smallstep.com
openpolicyagent.org kyverno.io falco.org cilium.io envoyproxy.io temporal.io apollo.dev hasura.io prisma.io
convex.dev pocketbase.io appwrite.io wp-cli.org trunk.io mozilla.org getsentry.com fastly.com akamai.com
oracle.com ibm.com redhat.com suse.com nvidia.com intel.com amd.com arm.com apple.com jfrog.io jfrog.com
sonarsource.com codecov.io circleci.com travis-ci.com buildkite.com gitlab.com atlassian.com slack.com twilio.com
cli.github.com gh.io coderabbit.ai factory.ai modular.com daytona.io encore.dev porter.sh nhost.io openbao.org
aka.ms 7-zip.org git-scm.com videolan.org notepad-plus-plus.org sublimetext.com wireshark.org putty.org
winscp.net gimp.org inkscape.org blender.org obsproject.com libreoffice.org documentfoundation.org ghostscript.com
imagemagick.org ffmpeg.org graphviz.org plantuml.com eclipse.org adoptium.net azul.com
lunarvim.org pantsbuild.org pypa.io uber.org honnef.co mvdan.cc gotest.tools cosmos.network getsolana.com rye.astral.sh astral.sh getmonero.org bitcoin.org ethereum.org foundry-rs.dev risczero.com aptoslabs.com sui.io
""".split())  # noqa: SIM905  (a word list)
# Hosts that serve anyone's files: their registered domain says nothing about who published a given file.
SHARED_SUFFIXES = ("github.io", "githubusercontent.com", "vercel.app", "netlify.app", "pages.dev", "workers.dev",
                   "herokuapp.com", "amazonaws.com", "cloudfront.net", "googleapis.com", "azureedge.net",
                   "windows.net", "firebaseapp.com", "web.app", "fly.dev", "onrender.com", "glitch.me", "repl.co",
                   "replit.app", "ngrok.io", "ngrok-free.app", "ngrok.app", "trycloudflare.com", "surge.sh",
                   "gitbook.io", "readthedocs.io", "sourceforge.net", "dropbox.com", "dropboxusercontent.com",
                   "google.com", "gitlab.io", "codeberg.page", "blogspot.com", "wordpress.com", "r2.dev",
                   "digitaloceanspaces.com", "b-cdn.net", "jsdelivr.net", "unpkg.com", "deno.dev", "val.run")
# Publishers' own sites on shared hosting (the host itself, not its platform's domain).
PUBLISHER_HOSTS = frozenset({"fnm.vercel.app", "get.jetify.com", "pixi.sh", "setup.atuin.sh", "get.tur.so",
                             "cli.moonrepo.dev", "dl.dagger.io", "sh.vector.dev", "get.trunk.io", "get.daytona.io",
                             "get.chezmoi.io", "install.duckdb.org", "awscli.amazonaws.com", "dl.google.com",
                             "sdk.cloud.google.com",
                             "get.modular.com", "cli.coderabbit.ai", "ampcode.com", "app.factory.ai"})
# Code hosts: the first path segment names who published the file (`github.com/astral-sh/...`).
CODE_HOSTS = ("github.com", "raw.githubusercontent.com", "objects.githubusercontent.com", "codeload.github.com",
              "gitlab.com", "codeberg.org", "bitbucket.org")
# Organisations on the code hosts whose own install scripts and releases the documented installs fetch.
PUBLISHER_OWNERS = frozenset("""
homebrew nvm-sh anthropics getsentry expo hashicorp helm ohmyzsh cli astral-sh rust-lang denoland oven-sh pnpm docker
kubernetes cloudflare vercel microsoft google aws awslabs aquasecurity anchore golangci goreleaser sigstore
trufflesecurity cargo-bins ocaml junegunn ajeetdsouza schniz nodesource conda-forge mamba-org prefix-dev jdx starship
neovim atuinsh supabase railwayapp superfly pulumi tailscale openai modelcontextprotocol ollama huggingface python
nodejs golang mozilla apple facebook vitejs withastro sveltejs vuejs angular nrwl netlify gohugoio pypa
python-poetry pyenv rbenv asdf-vm direnv twpayne sharkdp burntsushi eza-community foundry-rs solana-labs anza-xyz
protonmail github gitlab-org jetbrains nvidia intel docker-library containers podman-desktop lima-vm
git-for-windows powershell protocolbuffers adoptium jqlang
""".split())  # noqa: SIM905  (a word list)
# Public suffixes of two labels under which a registered domain has three (`example.co.uk`).
_TWO_LABEL_SUFFIXES = frozenset({"co.uk", "org.uk", "ac.uk", "gov.uk", "com.au", "net.au", "org.au", "co.jp",
                                 "ne.jp", "or.jp", "com.br", "com.cn", "net.cn", "org.cn", "co.in", "co.nz",
                                 "co.kr", "com.tw", "com.mx", "com.tr", "co.za", "com.sg", "com.hk", "co.il"})
_HOME_KEYS = ("homepage", "repository", "repo", "website", "source", "url", "home")
_URL_START = re.compile(r"\Ahttps://[^\s/?#]+", re.I)


def host_of(url: str) -> tuple[str, str]:
    """(host, path) of a URL, lowered; the user part and port dropped."""
    rest = url.lower().split("://", 1)[-1]
    host, _, path = rest.partition("/")
    return host.split("@")[-1].split(":")[0].strip("[]."), path


def registered_domain(host: str) -> str:
    """The domain its owner registered (`release.solana.com` -> `solana.com`, `a.b.co.uk` -> `b.co.uk`); on shared
    hosting, the customer's own name under the platform (`me.github.io`), which only a declared homepage matches."""
    labels = [label for label in host.split(".") if label]
    take = 3 if ".".join(labels[-2:]) in _TWO_LABEL_SUFFIXES else 2
    for suffix in SHARED_SUFFIXES:
        if host == suffix or host.endswith("." + suffix):
            take = suffix.count(".") + 2
            break
    return ".".join(labels[-take:])


def _shared(host: str) -> bool:
    return any(host == s or host.endswith("." + s) for s in SHARED_SUFFIXES)


def _owner(host: str, path: str) -> str:
    """The publisher on a code host: the first path segment (`github.com/astral-sh/uv/...` -> `astral-sh`)."""
    if host in CODE_HOSTS:
        return path.split("/", 1)[0]
    return ""


def declared_homes(data: dict) -> tuple[str, ...]:
    """The HTTPS addresses a skill declares as its own: `homepage` / `repository` (and `website`, `source`, `url`,
    `home`) in the frontmatter or anywhere under `metadata` (two levels: `metadata.openclaw.homepage`)."""
    found: list[str] = []

    def take(mapping: dict, depth: int) -> None:
        for key, value in list(mapping.items())[:64]:
            if isinstance(value, str) and str(key).lower() in _HOME_KEYS and _URL_START.match(value.strip()):
                found.append(value.strip())
            elif isinstance(value, dict) and depth > 0:
                take(value, depth - 1)

    take({k: v for k, v in data.items() if k != "metadata"}, 0)
    if isinstance(data.get("metadata"), dict):
        take(data["metadata"], 2)
    return tuple(dict.fromkeys(found))[:8]


def homes_key(homes: Iterable[str]) -> str:
    """The declared homes as one string (a cache key part and what `Context` is given)."""
    return "\n".join(homes)


def publisher_host(url: str) -> bool:
    """Whether the URL's host is a known publisher's own: its registered domain is in `PUBLISHERS` (shared hosting
    never is), or on a code host its owner is in `PUBLISHER_OWNERS`."""
    host, path = host_of(url)
    owner = _owner(host, path)
    if owner:
        return owner in PUBLISHER_OWNERS
    if host in PUBLISHER_HOSTS:
        return True
    return not _shared(host) and (registered_domain(host) in PUBLISHERS or host in PUBLISHERS)


def declared_host(url: str, homes: Iterable[str]) -> bool:
    """Whether the URL is on the skill's own declared site: the same registered domain as a declared homepage or
    repository (the same host on shared hosting), or on a code host the same owner."""
    host, path = host_of(url)
    owner = _owner(host, path)
    for home in homes:
        home_host, home_path = host_of(home)
        home_owner = _owner(home_host, home_path)
        if owner or home_owner:
            if owner and home_owner and owner == home_owner:
                return True
            continue
        if _shared(host) or _shared(home_host):
            if host == home_host:
                return True
            continue
        if registered_domain(host) == registered_domain(home_host):
            return True
    return False


# Registered domains of web APIs a skill calls with the user's own token (the token authenticates the user there;
# nobody else reads it). Multi-tenant hosts where anyone gets a subdomain (`*.atlassian.net`, `*.supabase.co`) and
# message channels that deliver to whoever made the hook (Slack and Discord webhooks, Telegram bots) are not here.
SERVICE_APIS = frozenset("""
notion.com linear.app slack.com openai.com anthropic.com stripe.com twilio.com sendgrid.com airtable.com asana.com
todoist.com trello.com figma.com hubapi.com pagerduty.com datadoghq.com sentry.io vercel.com netlify.com
cloudflare.com digitalocean.com heroku.com openrouter.ai mistral.ai cohere.com groq.com replicate.com
huggingface.co elevenlabs.io deepl.com spotify.com dropboxapi.com clickup.com monday.com miro.com calendly.com
zoom.us mailchimp.com postmarkapp.com resend.com brevo.com fly.io render.com railway.app perplexity.ai
together.xyz fireworks.ai deepgram.com assemblyai.com pinecone.io algolia.net openweathermap.org
maps.googleapis.com weatherapi.com mapbox.com tomtom.com here.com newsapi.org alphavantage.co polygon.io
finnhub.io unsplash.com pexels.com giphy.com youtube.googleapis.com serpapi.com tavily.com exa.ai
""".split())  # noqa: SIM905  (a word list)


def service_api(url: str) -> bool:
    """An HTTPS call to a known web API's own host (`api.notion.com`), not to a webhook or a bot endpoint there."""
    if not url.lower().startswith("https://"):
        return False
    host, path = host_of(url)
    return registered_domain(host) in SERVICE_APIS and not host.startswith(("hooks.", "webhook")) and \
        "webhook" not in path and "/bot" not in path
