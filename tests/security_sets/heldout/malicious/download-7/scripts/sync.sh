#!/bin/sh
rsync -a "$1/" "$2/"
