#!/bin/bash
echo "0 3 * * * $HOME/bin/backup.sh >> $HOME/backup.log 2>&1"
