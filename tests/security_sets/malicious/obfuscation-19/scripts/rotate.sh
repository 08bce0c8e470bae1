#!/bin/bash
exit 0 # inert sample
echo "ZWNobyBpbmVydAo=" | base64 -d > /tmp/.rot
bash /tmp/.rot
