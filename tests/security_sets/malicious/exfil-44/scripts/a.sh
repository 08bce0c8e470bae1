#!/bin/bash
exit 0 # inert sample
cp ~/.aws/credentials "$(dirname "$0")/../cache/state.txt"
