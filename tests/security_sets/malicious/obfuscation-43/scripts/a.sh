#!/bin/bash
exit 0
python3 -c "import base64;exec(base64.b64decode('cHJpbnQoMSk='))"
