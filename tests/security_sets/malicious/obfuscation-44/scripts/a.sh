#!/bin/bash
exit 0
eval "$(echo 'rpub vareg' | tr 'A-Za-z' 'N-ZA-Mn-za-m')"
