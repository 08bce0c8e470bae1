"""`skill mcp` (issue 38): initialize + list tools with 1,000 installed skills, and reading a 100 KB file.

    python benchmarks/bench_mcp.py [--quick] [--skills N] [--repeat R]

Builds N skills (default 1,000) in a temporary home's ~/.agents/skills, one of them with a 100 KB reference file,
and measures with the MCP Python SDK's own client:

- server: a fresh server for those skills (discovery through the runtime's index cache, the instructions with the
  index, the tools) connected in-process, `initialize` and `tools/list` — what the server itself costs (target
  < 300 ms); also with the cache off (a cold scan of every SKILL.md);
- process: `skill mcp` started as a subprocess over stdio, `initialize` and `tools/list`, then stopped — what a
  client waits for on start, Python and SDK imports included (no target; reported beside);
- read: `read_skill_file` of the 100 KB file on a connected session (target < 20 ms), and the same through the
  `skill://` resource.

Prints medians (min–max) and writes benchmarks/results/mcp.json. Needs the `mcp` extra.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

BIG = 100 * 1024
TARGETS = {"server_init_list_ms": 300.0, "read_100kb_ms": 20.0}


def build(home: Path, count: int) -> None:
    root = home / ".agents" / "skills"
    for i in range(count):
        folder = root / f"skill-{i:04d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{i:04d}\ndescription: Skill number {i} handles task {i} for benchmark data; use when "
            f"the user asks about item {i}.\n---\n\n# Skill {i}\n\n" + "Step.\n" * 20, encoding="utf-8")
    refs = root / "skill-0000" / "references"
    refs.mkdir()
    line = "A line of reference text for the benchmark, plain ASCII so it stays text.\n"
    (refs / "big.md").write_text((line * (BIG // len(line) + 1))[:BIG], encoding="utf-8")


def summary(samples: list[float]) -> dict:
    ms = [s * 1000 for s in samples]
    return {"median_ms": round(statistics.median(ms), 2), "min_ms": round(min(ms), 2), "max_ms": round(max(ms), 2),
            "runs": len(ms)}


async def server_init_list(cache: bool, home: Path, parts: list | None = None) -> float:
    """Build a server for the skills, connect, initialize, list tools; `parts` gets (build, connect + list)."""
    from mcp import Client

    from skillyard.runtime.mcp_server import build_server
    from skillyard.runtime.service import SkillRuntime

    start = time.perf_counter()
    runtime = SkillRuntime(cwd=str(home), home=str(home), cache_dir=None if cache else False)
    server = build_server(runtime)
    built = time.perf_counter()
    async with Client(server) as client:
        tools = await client.list_tools()
    took = time.perf_counter() - start
    if parts is not None:
        parts.append((built - start, took - (built - start)))
    assert {"list_skills", "load_skill", "read_skill_file"} <= {t.name for t in tools.tools}
    return took


async def process_init_list(home: Path, env: dict) -> float:
    from mcp.client import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    skill = str(Path(sys.executable).with_name("skill"))
    params = StdioServerParameters(command=skill, args=["mcp"], env=env, cwd=str(home))
    start = time.perf_counter()
    with open(os.devnull, "w") as quiet:
        async with stdio_client(params, errlog=quiet) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
    took = time.perf_counter() - start
    assert "load_skill" in {t.name for t in tools.tools}
    return took


async def reads(home: Path, repeat: int) -> tuple[list[float], list[float]]:
    from mcp import Client

    from skillyard.runtime.mcp_server import build_server
    from skillyard.runtime.service import SkillRuntime

    runtime = SkillRuntime(cwd=str(home), home=str(home))
    tool, resource = [], []
    async with Client(build_server(runtime)) as client:
        for _ in range(repeat):
            start = time.perf_counter()
            result = await client.call_tool("read_skill_file", {"skill_name": "skill-0000",
                                                                "file_path": "references/big.md"})
            tool.append(time.perf_counter() - start)
            assert not result.is_error and len(result.content[0].text) == BIG
            start = time.perf_counter()
            read = await client.read_resource("skill://skill-0000/references/big.md")
            resource.append(time.perf_counter() - start)
            assert len(read.contents[0].text) == BIG
    return tool, resource


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats and 300 skills")
    parser.add_argument("--skills", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=None)
    args = parser.parse_args()
    count = args.skills or (300 if args.quick else 1000)
    repeat = args.repeat or (5 if args.quick else 15)
    try:
        import anyio
        import mcp  # noqa: F401
    except ImportError:
        print("bench_mcp: skipped, the `mcp` extra is not installed (pip install 'skillyard[mcp]')")
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as tmp:
        home = Path(tmp) / "home"
        build(home, count)
        saved = {k: os.environ.get(k) for k in ("HOME", "SKILL_PATH", "XDG_CACHE_HOME")}
        os.environ.update({"HOME": str(home), "SKILL_PATH": "", "XDG_CACHE_HOME": str(Path(tmp) / "cache")})
        env = {"HOME": str(home), "PATH": os.environ.get("PATH", ""), "SKILL_PATH": "", "SKILL_DEFAULT_SOURCE": "none",
               "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        try:
            anyio.run(server_init_list, True, home)  # warm: imports, and the index cache written once
            parts: list = []
            warm = [anyio.run(server_init_list, True, home, parts) for _ in range(repeat)]
            cold = [anyio.run(server_init_list, False, home) for _ in range(max(3, repeat // 3))]
            process = [anyio.run(process_init_list, home, env) for _ in range(max(3, repeat // 3))]
            tool, resource = anyio.run(reads, home, repeat)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
    figures = {
        "skills": count, "file_bytes": BIG,
        "server_init_list": summary(warm), "server_init_list_no_cache": summary(cold),
        "server_build": summary([p[0] for p in parts]), "connect_init_list": summary([p[1] for p in parts]),
        "process_init_list": summary(process), "read_100kb_tool": summary(tool),
        "read_100kb_resource": summary(resource),
        "targets_ms": TARGETS, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "load": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    }
    rows = [("initialize + tools/list, server in-process (index cache)", "server_init_list", 300.0),
            ("  of which building the server (discovery, index, tools, a prompt per skill)", "server_build", None),
            ("  of which connect + initialize + tools/list", "connect_init_list", None),
            ("initialize + tools/list, server in-process, cache off", "server_init_list_no_cache", None),
            ("`skill mcp` process start + initialize + tools/list", "process_init_list", None),
            ("read_skill_file, 100 KB", "read_100kb_tool", 20.0),
            ("skill:// resource read, 100 KB", "read_100kb_resource", 20.0)]
    print(f"bench_mcp: {count} skills, median of {repeat} (min–max), load {figures['load']}")
    for label, key, target in rows:
        f = figures[key]
        met = target is not None and f["median_ms"] < target
        verdict = "" if target is None else f" — target < {target:g} ms: {'met' if met else 'NOT met'}"
        print(f"  {label}: {f['median_ms']:.1f} ms ({f['min_ms']:.1f}–{f['max_ms']:.1f}){verdict}")
    out = Path(__file__).resolve().parent / "results" / "mcp.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
