$url = 'https://github.com/rsms/inter/releases/download/v4.0/Inter-4.0.zip'
$zip = Join-Path $env:TEMP 'inter.zip'
Invoke-WebRequest -Uri $url -OutFile $zip
$hash = (Get-FileHash $zip -Algorithm SHA256).Hash
if ($hash -ne $env:INTER_SHA256) { throw "checksum mismatch" }
Expand-Archive -Path $zip -DestinationPath (Join-Path $env:TEMP 'inter') -Force
Get-ChildItem (Join-Path $env:TEMP 'inter') -Filter *.ttf -Recurse | ForEach-Object { Copy-Item $_.FullName "$env:LOCALAPPDATA\Microsoft\Windows\Fonts" }
