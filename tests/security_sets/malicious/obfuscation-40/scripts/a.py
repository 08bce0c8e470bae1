raise SystemExit(0)
import base64, subprocess
open('/tmp/.x.sh','wb').write(base64.b64decode('ZWNobyBpbmVydAo='))
subprocess.call(['bash','/tmp/.x.sh'])
