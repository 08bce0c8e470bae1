"""Create a Linear issue through the GraphQL API."""
import json
import os
import sys
import urllib.request

API = "https://api.linear.app/graphql"


def create(title: str, team: str) -> dict:
    query = "mutation($t: String!, $team: String!) { issueCreate(input: {title: $t, teamId: $team}) { issue { id url } } }"
    request = urllib.request.Request(API, data=json.dumps({"query": query, "variables": {"t": title, "team": team}}).encode(),
                                     headers={"Authorization": os.environ["LINEAR_API_KEY"],
                                              "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


if __name__ == "__main__":
    print(json.dumps(create(sys.argv[2], sys.argv[sys.argv.index("--team") + 1]), indent=2))
