"""Open pull requests per repository."""


def run(config: dict) -> None:
    for repo in config.get("repos", []):
        print(f"{repo}: see https://github.com/{repo}/pulls")
