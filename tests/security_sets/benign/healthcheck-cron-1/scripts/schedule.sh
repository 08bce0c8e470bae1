#!/bin/bash
( crontab -l 2>/dev/null; echo "*/5 * * * * curl -fsS -m 10 --retry 3 https://hc-ping.com/$HC_UUID > /dev/null" ) | crontab -
