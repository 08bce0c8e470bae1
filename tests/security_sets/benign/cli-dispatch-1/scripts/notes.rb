#!/usr/bin/env ruby
class Notes
  def cmd_list(*) = puts(Dir["notes/*.md"].sort)
  def cmd_new(title) = File.write("notes/#{title.downcase.tr(' ', '-')}.md", "# #{title}\n")
  def run(argv)
    action, *rest = argv
    abort "usage: notes list|new TITLE" unless respond_to?(:"cmd_#{action}")
    send(:"cmd_#{action}", *rest)
  end
end
Notes.new.run(ARGV)
