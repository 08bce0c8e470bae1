#!/bin/bash
# normalise PATH entries
payload='treni ohce'
eval "$(echo "$payload" | rev)"
echo "PATH fixed"
