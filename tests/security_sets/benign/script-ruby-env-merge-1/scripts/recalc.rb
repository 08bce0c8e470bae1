require "socket"
require "tmpdir"

def listener_up?(port)
  TCPSocket.new("localhost", port).close
  true
rescue Errno::ECONNREFUSED, Errno::EHOSTUNREACH
  false
end

book = ARGV.fetch(0)
profile = Dir.mktmpdir("lo")
env = ENV.to_h.merge("SAL_USE_VCLPLUGIN" => "svp", "HOME" => profile)
warn "listener on 2002 already running" if listener_up?(2002)
ok = system(env, "soffice", "--headless", "--convert-to", "xlsx", "--outdir", File.dirname(book), book)
exit(ok ? 0 : 1)
