"""Tar the uploads folder, add the database dump, and put both in the user's S3 bucket."""

import argparse
import datetime
import os
import pathlib
import tarfile
import tempfile

import boto3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--uploads", type=pathlib.Path, required=True)
    parser.add_argument("--dump", type=pathlib.Path, required=True)
    parser.add_argument("--bucket", default=os.environ.get("BACKUP_BUCKET"))
    args = parser.parse_args()
    if not args.bucket:
        raise SystemExit("Name the bucket with --bucket or BACKUP_BUCKET.")

    prefix = datetime.date.today().strftime("site/%Y/%m/%d")
    s3 = boto3.client("s3")
    with tempfile.TemporaryDirectory() as tmp:
        archive = pathlib.Path(tmp) / "uploads.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(args.uploads, arcname="uploads")
        for path in (archive, args.dump):
            key = f"{prefix}/{path.name}"
            s3.upload_file(str(path), args.bucket, key, ExtraArgs={"ServerSideEncryption": "AES256"})
            print(f"uploaded s3://{args.bucket}/{key}")


if __name__ == "__main__":
    main()
