"""Print the active sprint's issues grouped by status category, from Jira Cloud's Agile REST API."""

import argparse
import base64
import json
import os
import urllib.request
from collections import defaultdict


def client():
    site = os.environ["JIRA_SITE"]
    token = base64.b64encode(f"{os.environ['JIRA_EMAIL']}:{os.environ['JIRA_API_TOKEN']}".encode()).decode()
    headers = {"Authorization": f"Basic {token}", "Accept": "application/json"}

    def get(path):
        request = urllib.request.Request(f"https://{site}{path}", headers=headers)
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)
    return get


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--board", type=int, required=True)
    args = parser.parse_args()
    get = client()
    sprint = get(f"/rest/agile/1.0/board/{args.board}/sprint?state=active")["values"][0]
    issues = get(f"/rest/agile/1.0/sprint/{sprint['id']}/issue?maxResults=200&fields=summary,status,assignee")
    groups = defaultdict(list)
    for issue in issues["issues"]:
        fields = issue["fields"]
        groups[fields["status"]["statusCategory"]["name"]].append(
            f"{issue['key']} {fields['summary']} ({(fields.get('assignee') or {}).get('displayName', 'unassigned')})")
    print(f"Sprint: {sprint['name']}")
    for category in ("Done", "In Progress", "To Do"):
        print(f"\n{category} ({len(groups[category])})")
        for line in groups[category]:
            print(f"  {line}")


if __name__ == "__main__":
    main()
