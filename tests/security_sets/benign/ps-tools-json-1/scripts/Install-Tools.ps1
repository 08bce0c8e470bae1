#Requires -RunAsAdministrator
$ErrorActionPreference = 'Stop'
$manifest = Get-Content (Join-Path $PSScriptRoot '..\tools.json') -Raw | ConvertFrom-Json
foreach ($tool in $manifest.tools) {
    $file = Join-Path $env:TEMP ("setup-" + ($tool.name -replace '\W', '') + ".exe")
    Write-Host "Downloading $($tool.name) from $($tool.url)"
    Invoke-WebRequest -Uri $tool.url -OutFile $file
    $hash = (Get-FileHash $file -Algorithm SHA256).Hash
    if ($hash -ne $tool.sha256.ToUpper()) { throw "Checksum mismatch for $($tool.name)" }
    Start-Process -FilePath $file -ArgumentList $tool.args -Wait
    Remove-Item $file
}
