"""Write the user's open assigned GitHub issues to issues.md, with the token login.py saved."""

import json
import pathlib
import urllib.request

TOKEN_FILE = pathlib.Path.home() / ".config" / "gh-issues-offline" / "token.json"
token = json.loads(TOKEN_FILE.read_text())["access_token"]
request = urllib.request.Request("https://api.github.com/issues?filter=assigned&state=open&per_page=100",
                                 headers={"Authorization": f"Bearer {token}",
                                          "Accept": "application/vnd.github+json"})
with urllib.request.urlopen(request, timeout=30) as response:
    issues = json.load(response)
lines = ["# Assigned issues", ""]
for issue in issues:
    lines.append(f"## {issue['repository']['full_name']}#{issue['number']}: {issue['title']}")
    lines.append(issue.get("body") or "(no description)")
    lines.append("")
pathlib.Path("issues.md").write_text("\n".join(lines))
print(f"wrote {len(issues)} issues to issues.md")
