require "net/http"
require "rss"
require "time"

since = Time.now - 7 * 24 * 3600
File.readlines(ARGV[0], chomp: true).reject(&:empty?).each do |url|
  body = Net::HTTP.get(URI(url))
  feed = RSS::Parser.parse(body, false)
  next unless feed
  puts "## #{feed.channel.title rescue feed.title.content}"
  feed.items.each do |item|
    date = item.respond_to?(:pubDate) ? item.pubDate : item.updated.content
    next if date.nil? || date < since
    link = item.link.respond_to?(:href) ? item.link.href : item.link
    puts "- [#{item.title.respond_to?(:content) ? item.title.content : item.title}](#{link})"
  end
end
