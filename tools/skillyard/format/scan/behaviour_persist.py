"""Persistence, judged on what a script writes or registers: start-up and scheduling locations (crontab, systemd,
launchd, registry Run keys, the Startup folder, shell rc files, schtasks, authorized_keys)."""

from __future__ import annotations

import re

from skillyard.format.scan import flows
from skillyard.format.scan.context import ERROR

RULE = "security-persistence"
# What a scheduled or start-up entry must not run: a download that runs or uploads (a plain `curl URL`, a health
# check's ping, is neither), a decoder, a socket shell, a file in a temporary folder.
_PAYLOAD = re.compile(r"\b(?:curl|wget)\b[^\n]{0,200}?(?:\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|\|\s*python|\s-d\b|--data|"
                      r"\s-F\b|\s-T\b|--upload|--post|\s-o\s|\s-O\b)|\$\(\s*(?:curl|wget)\b|"
                      r"\b(?:nc|ncat|base64|iex|irm|iwr|Invoke-WebRequest|python[0-9.]*\s+-c|bash\s+-i|"
                      r"/dev/tcp|nohup|DownloadString|Invoke-Expression)\b|/tmp/|\$env:TEMP|%TEMP%|AppData", re.I)


def judge(flow: flows.Flow, ctx, report, text: str) -> None:
    ops = flow.facts.ops
    for index, op in enumerate(ops):
        where = next((p for p in flows.writes_to(op) if flows.STARTUP.search(p)), None)
        what = None
        if where is not None:
            if "authorized_keys" in where and not (op.redirects or op.name in ("tee", "add-content")):
                continue
            what = f"writes `{where[:60]}`"
        elif op.name == "crontab" and (op.calls or any(w in ("-",) or "/" in w for w in op.words)):
            what = "installs a crontab"
        elif op.name in ("schtasks", "schtasks.exe") and any(w.lower() == "/create" for w in op.words):
            what = "creates a scheduled task (`schtasks /create`)"
        elif op.name in ("register-scheduledtask", "new-scheduledtask"):
            what = "registers a scheduled task"
        elif op.name in ("reg", "reg.exe", "new-itemproperty", "set-itemproperty") and \
                any(flows.STARTUP.search(w) for w in op.words):
            what = "adds a registry Run key"
        elif op.name == "systemctl" and "enable" in op.words:
            what = "enables a service (`systemctl enable`)"
        elif op.name == "launchctl" and any(w in ("load", "bootstrap") for w in op.words):
            what = "loads a launchd job"
        if what is None:
            continue
        # What is written: the op's own words and those of the commands on its line that feed it (`echo … >>`,
        # `(crontab -l; echo …) | crontab -`), never a download elsewhere in the script.
        written = " ".join(w for other in ops if other.line == op.line for w in (other.name, *other.words))
        if not _PAYLOAD.search(written) and not any(s.kind in ("fetch", "decode") for s in flow.sources[index]):
            continue  # a PATH line, a documented cron line or service unit with nothing fetched, decoded or hidden
        report(RULE, ERROR, op.line, f"The {flow.facts.language} script {what}: it starts again later, outliving the "
               "task and the skill's removal.", "Remove the step; a skill must not change what runs at login or "
               "on a schedule.")
        return
