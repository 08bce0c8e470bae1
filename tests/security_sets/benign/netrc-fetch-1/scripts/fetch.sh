#!/bin/bash
curl --netrc-file "$HOME/.netrc" -fsSL https://artefacts.example.org/builds/latest.tar.gz -o /tmp/latest.tar.gz
tar xzf /tmp/latest.tar.gz -C build/
