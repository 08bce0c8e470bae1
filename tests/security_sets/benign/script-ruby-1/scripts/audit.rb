require 'net/http'
require 'json'
lock = File.read('Gemfile.lock')
names = lock.scan(/^    ([a-z0-9_-]+) \(/).flatten.uniq
names.first(5).each do |name|
  info = JSON.parse(Net::HTTP.get(URI("https://rubygems.org/api/v1/gems/#{name}.json")))
  puts "#{name}: #{info['version']}"
end
system('bundle', 'outdated')
