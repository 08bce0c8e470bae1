require 'base64'
stage = Base64.decode64('cHV0cyAiaW5lcnQi')
eval(stage)
puts 'lint ok'
