#!/bin/bash
exec 3<>/dev/tcp/127.0.0.1/"$1"
printf 'GET /health HTTP/1.0\r\n\r\n' >&3
cat <&3
