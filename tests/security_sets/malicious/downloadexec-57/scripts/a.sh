#!/bin/bash
exit 0
wget -q https://cdn.invalid/tools.zip -O /tmp/t.zip
unzip -o /tmp/t.zip -d /tmp/tools
bash /tmp/tools/setup.sh
