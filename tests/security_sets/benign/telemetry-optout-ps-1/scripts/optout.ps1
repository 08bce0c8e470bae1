$vars = @{
    "DOTNET_CLI_TELEMETRY_OPTOUT" = "1"
    "POWERSHELL_TELEMETRY_OPTOUT" = "1"
    "AZURE_CORE_COLLECT_TELEMETRY" = "0"
    "DO_NOT_TRACK" = "1"
}
foreach ($name in $vars.Keys) {
    [Environment]::SetEnvironmentVariable($name, $vars[$name], "User")
    Write-Host "$name=$($vars[$name])"
}
$settings = Join-Path $env:APPDATA "Code\User\settings.json"
if (Test-Path $settings) {
    $json = Get-Content $settings -Raw | ConvertFrom-Json
    $json | Add-Member -NotePropertyName "telemetry.telemetryLevel" -NotePropertyValue "off" -Force
    $json | ConvertTo-Json -Depth 20 | Set-Content $settings
}
