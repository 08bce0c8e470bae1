"""Score customers with a committed joblib model after checking its hash against the manifest."""

import argparse
import hashlib
import pathlib
import pickle

import joblib
import pandas as pd


def checked(model: pathlib.Path) -> pathlib.Path:
    manifest = dict(line.split()[::-1] for line in (model.parent / "MANIFEST").read_text().splitlines() if line)
    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    if manifest.get(model.name) != digest:
        raise SystemExit(f"{model} does not match models/MANIFEST; refusing to load it")
    return model


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("csv", type=pathlib.Path)
    parser.add_argument("--model", type=pathlib.Path, required=True)
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("scored.csv"))
    args = parser.parse_args()
    path = checked(args.model)
    if path.suffix == ".pkl":
        with path.open("rb") as handle:
            model = pickle.load(handle)
    else:
        model = joblib.load(path)
    frame = pd.read_csv(args.csv)
    frame["churn_probability"] = model.predict_proba(frame)[:, 1]
    frame.to_csv(args.out, index=False)
    print(f"wrote {len(frame)} rows to {args.out}")


if __name__ == "__main__":
    main()
