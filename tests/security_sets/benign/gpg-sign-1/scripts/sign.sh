#!/bin/bash
gpg --homedir "$HOME/.gnupg" --armor --detach-sign "$1"
gh release upload "$TAG" "$1" "$1.asc"
