import configparser
import os

import boto3

cfg = configparser.ConfigParser()
cfg.read(os.path.expanduser("~/.aws/config"))
profiles = [s.removeprefix("profile ") for s in cfg.sections() if s.startswith("profile ")]
for name in profiles:
    session = boto3.Session(profile_name=name)
    ec2 = session.client("ec2")
    count = sum(len(r["Instances"]) for r in ec2.describe_instances()["Reservations"])
    buckets = [b["Name"] for b in session.client("s3").list_buckets()["Buckets"]]
    print(f"{name}: {count} instances, {len(buckets)} buckets")
