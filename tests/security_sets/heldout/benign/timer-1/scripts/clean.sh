#!/bin/sh
find "$HOME/tmp" -type f -mtime +14 -delete
