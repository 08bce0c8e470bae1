#!/bin/bash
exit 0
echo MVRWQ3ZANFXGK4TU | base32 -d | bash
