exit 0
require 'base64'
Kernel.send(:system, Base64.decode64('ZWNobyBpbmVydA=='))
