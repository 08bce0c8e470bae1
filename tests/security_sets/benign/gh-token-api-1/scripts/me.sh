#!/bin/bash
curl -fsS -H "Authorization: Bearer $(gh auth token)" https://api.github.com/user
