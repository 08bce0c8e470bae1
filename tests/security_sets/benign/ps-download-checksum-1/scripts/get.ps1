$ver = '1.4.2'
$url = "https://github.com/cli/cli/releases/download/v$ver/gh_${ver}_windows_amd64.zip"
$zip = Join-Path $env:TEMP 'gh.zip'
Invoke-WebRequest -Uri $url -OutFile $zip
Expand-Archive $zip -DestinationPath "$env:LOCALAPPDATA\gh" -Force
& "$env:LOCALAPPDATA\gh\bin\gh.exe" --version
