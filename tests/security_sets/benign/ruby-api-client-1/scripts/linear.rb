#!/usr/bin/env ruby
# List or create Linear issues through the GraphQL API.
require "json"
require "net/http"
require "uri"

API = URI("https://api.linear.app/graphql")
KEY = ENV.fetch("LINEAR_API_KEY") { abort "Set LINEAR_API_KEY." }

def graphql(query, variables = {})
  http = Net::HTTP.new(API.host, API.port)
  http.use_ssl = true
  request = Net::HTTP::Post.new(API, "Content-Type" => "application/json", "Authorization" => KEY)
  request.body = { query: query, variables: variables }.to_json
  body = JSON.parse(http.request(request).body)
  abort body["errors"].map { |e| e["message"] }.join("\n") if body["errors"]
  body["data"]
end

case ARGV.shift
when "list"
  data = graphql("{ viewer { assignedIssues(filter: {state: {type: {nin: [\"completed\", \"canceled\"]}}}) { nodes { identifier title state { name } } } } }")
  data["viewer"]["assignedIssues"]["nodes"].each do |issue|
    puts "#{issue['identifier']}  [#{issue['state']['name']}]  #{issue['title']}"
  end
when "create"
  team_key, title, description = ARGV
  team = graphql("query($key: String!) { teams(filter: {key: {eq: $key}}) { nodes { id } } }", key: team_key)
  id = team["teams"]["nodes"].first&.fetch("id") or abort "No team #{team_key}"
  created = graphql("mutation($input: IssueCreateInput!) { issueCreate(input: $input) { issue { identifier url } } }",
                    input: { teamId: id, title: title, description: description })
  issue = created["issueCreate"]["issue"]
  puts "#{issue['identifier']} #{issue['url']}"
else
  abort "usage: linear.rb list | create TEAM_KEY TITLE DESCRIPTION"
end
