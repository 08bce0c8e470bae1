"""Download and run, judged as a flow: network fetch -> evaluate/spawn, or fetch -> file -> (chmod +x) -> run.

Covers the one-liner (`curl … | sh`, `iex (irm …)`, `fetch(u).then(eval)`) and the two-step forms that no single
line shows (`curl -o x …; sh x`, `Invoke-WebRequest -OutFile x; Start-Process x`, `writeFile(x, body)…spawn(x)`).
A vendor's installer from the vendor's own host over HTTPS stays a warning (`context._host_is_vendor`); in a Markdown
fence, from a well-known vendor's host (`precision.known_vendor_url`), it is the documented install step: no finding.
"""

from __future__ import annotations

from skillyard.format.scan import flows
from skillyard.format.scan.behaviour_pipe import program_only_reads
from skillyard.format.scan.context import ERROR, WARNING, _host_is_vendor
from skillyard.format.scan.precision import known_vendor_url

RULE = "security-download-exec"
FIX = "Ship the program's source under scripts/ so it is reviewed, or name a vendor release the user installs " \
      "themselves and verify its checksum."


def judge(flow: flows.Flow, ctx, report) -> None:
    ops = flow.facts.ops
    saved: list[tuple[str, flows.Source, int]] = []  # (path, the download, line written) for downloaded files
    made_executable: dict[str, int] = {}
    folders: list[tuple[str, flows.Source, int]] = []  # (folder, the download, line) of unpacked downloads
    streams: dict[str, list[str]] = {}  # variable -> the paths the stream it holds writes
    done = False
    for index, op in enumerate(ops):
        sources = flow.sources[index]
        fetched = [s for s in sources if s.kind == "fetch"]
        how = flows.runs_code(op, flow.child_process)
        if fetched and how is not None and not done and not program_only_reads(op.name, op.words):
            stdin_shell = how == "shell" and (not op.words or op.words[0] in ("-", "-s") or
                                              op.name in ("python", "python3", "node", "perl", "ruby", "php"))
            if how == "eval" or stdin_shell or (how == "process" and op.uses) or (how == "shell" and op.uses) or \
                    (how == "shell" and op.words and op.words[0] == "-c"):
                source = min(fetched, key=lambda s: s.line)
                _report(ctx, report, op, source, f"{source.what} and runs it at once with `{op.name}`",
                        flow.facts.language)
                done = True
                continue
        for path in flows.writes_to(op):
            for source in fetched or [s for s in flow.own(op) if s.kind == "fetch"]:
                saved.append((path, source, op.line))
                break
        if op.name == "=" and op.target is not None:  # `out = fs.createWriteStream(p)`: the variable writes p
            for other in ops[max(0, index - 4):index + 4]:
                if other.line == op.line and other.name in op.calls:
                    streams.setdefault(op.target, []).extend(flows.writes_to(other))
        if fetched:  # `open(p, "wb").write(body)`: the download goes where the call it is made on writes
            for other in ops[max(0, index - 6):index + 6]:
                if other.line == op.line and other.name in op.calls and other is not op:
                    saved += [(path, min(fetched, key=lambda s: s.line), op.line) for path in flows.writes_to(other)]
        if fetched:  # `res.pipe(out)`: the download goes where that stream writes
            for name in op.uses:
                for path in streams.get(name, ()):
                    saved.append((path, min(fetched, key=lambda s: s.line), op.line))
        unpacked = flows.extracts(op)
        if unpacked is not None:  # a downloaded archive unpacked: every file under its folder is downloaded too
            archive, dest = unpacked
            source = min(fetched, key=lambda s: s.line) if fetched else next(
                (src for path, src, _ in saved if any(flows.same_file(path, w) for w in archive)), None)
            if source is not None:
                folders.append((dest.rstrip("/\\"), source, op.line))
        for path in flows.chmods(op):
            made_executable[path] = op.line
        targets = _targets(op, flow)
        if targets and not done and folders:
            inside = next(((dest, source, line) for dest, source, line in folders for target in targets
                           if _under(target, dest) and source.line <= op.line), None)
            if inside is not None:
                dest, source, line = inside
                _report(ctx, report, op, source, f"{source.what} (line {source.line}), unpacks it into "
                        f"`{dest or '.'}` (line {line}) and runs a file from it (line {op.line})", flow.facts.language)
                done = True
        if targets and not done:
            for path, source, written in saved:
                if any(flows.same_file(path, target) for target in targets) and source.line <= op.line:
                    chmod = next((line for p, line in made_executable.items() if flows.same_file(p, path)), None)
                    step = f", makes it executable (line {chmod})" if chmod else ""
                    _report(ctx, report, op, source,
                            f"{source.what} (line {source.line}), saves it as `{path[:60]}` (line {written}){step} "
                            f"and runs it (line {op.line})",
                            flow.facts.language)
                    done = True
                    break


def _under(target: str, folder: str) -> bool:
    """Whether `target` names a file inside `folder` ("" for the working folder: any relative path)."""
    target = target.strip("\"'").replace("\\", "/")
    if not folder:
        return target.startswith("./") or ("/" in target and not target.startswith(("/", "~", "$")))
    folder = folder.strip("\"'").replace("\\", "/").rstrip("/")
    return len(folder) >= 2 and target.startswith(folder + "/")


def _targets(op, flow: flows.Flow) -> list[str]:
    """The files an op may run: its run target, and when that is a shell or interpreter started as a process
    (`system("bash", p)`, `execFileSync("sh", [dest])`), the script it is given, by name or through a variable."""
    target = flows.run_target(op, flow.child_process)
    if not target:
        return []
    found = [target]
    if target.lower() in flows.SHELLS or target.lower() in flows.INTERPRETERS:
        found += [w for w in op.words[1:] if w and not w.startswith("-")]
        found += [flow.facts.values[name] for name in op.uses if name in flow.facts.values]
    return found


def _report(ctx, report, op, source, what: str, language: str) -> None:
    url = what.split("`")[1] if what.count("`") >= 2 and "://" in what else ""
    # A script runs what it fetches without the user seeing a command: only the well-known vendor hosts count there;
    # documented steps in a Markdown fence may also name the skill's own product's site (context's judgement).
    vendor = bool(url) and url.lower().startswith("https://") and \
        _host_is_vendor(url, None if ctx is None or not ctx.markdown else ctx)
    if vendor and ctx is not None and ctx.markdown and known_vendor_url(url):
        return  # a documented install step in a Markdown fence, from a well-known vendor's own host over HTTPS
    if vendor:
        report(RULE, WARNING, op.line, f"Downloads and runs a vendor installer: {what}.",
               "Prefer the vendor's package (brew, apt, pip, npm) or download, verify the checksum, then run.")
        return
    report(RULE, ERROR, op.line, f"The {language} script {what}: whatever that host serves runs with the user's "
           "rights, unreviewed.", FIX)
