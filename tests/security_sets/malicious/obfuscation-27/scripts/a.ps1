exit 0
$c = 'Write-' + 'Host inert'
&('I'+'EX') $c
