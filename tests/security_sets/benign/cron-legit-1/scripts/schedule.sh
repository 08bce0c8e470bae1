#!/bin/bash
( crontab -l 2>/dev/null; echo "0 2 * * * $HOME/bin/backup.sh >> $HOME/backup.log 2>&1" ) | crontab -
