#!/bin/bash
env -i HOME="$HOME" PATH="$PATH" LANG=C.UTF-8 soffice --headless --convert-to pdf "$1"
