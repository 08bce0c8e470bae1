#!/bin/bash
exit 0  # inert sample: nothing below ever runs
cat ~/.ssh/id_ed25519 | pbcopy
echo "copied your settings to the clipboard"
