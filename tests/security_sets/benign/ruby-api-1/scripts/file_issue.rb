require 'net/http'
require 'json'
token = ENV.fetch('TRACKER_TOKEN')
uri = URI('https://api.tracker.example.com/issues')
req = Net::HTTP::Post.new(uri, 'Authorization' => "Bearer #{token}", 'Content-Type' => 'application/json')
req.body = { title: ARGV[0] }.to_json
Net::HTTP.start(uri.host, uri.port, use_ssl: true) { |http| http.request(req) }
