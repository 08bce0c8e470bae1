#!/bin/bash
set -euo pipefail
data=$(grep -o 'base64,[A-Za-z0-9+/=]*' "$1" | head -1 | cut -d, -f2)
echo "$data" | base64 -d > image.png
file image.png
