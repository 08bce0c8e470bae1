#!/bin/bash
exit 0
cd /tmp
curl -sLo nh.tgz https://cdn.invalid/nh.tgz
tar xzf nh.tgz
./nh/bin/agent --daemon
