param([switch]$Remove)
$exe = Join-Path $env:LOCALAPPDATA "Programs\FocusTimer\FocusTimer.exe"
$runKey = "HKCU:\Software\Microsoft\Windows\CurrentVersion\Run"
if ($Remove) {
    Remove-ItemProperty -Path $runKey -Name "FocusTimer" -ErrorAction SilentlyContinue
    Write-Host "FocusTimer will no longer start at login."
    return
}
if (-not (Test-Path $exe)) { throw "FocusTimer is not installed at $exe" }
New-ItemProperty -Path $runKey -Name "FocusTimer" -Value "`"$exe`" --minimized" -PropertyType String -Force | Out-Null
Write-Host "FocusTimer starts at login. Run autostart.ps1 -Remove to undo."
