param([switch]$Remove)
$name = "NotesSync"
if ($Remove) { Unregister-ScheduledTask -TaskName $name -Confirm:$false; return }
$script = Join-Path $env:LOCALAPPDATA "NotesSync\sync.ps1"
$action = New-ScheduledTaskAction -Execute "pwsh.exe" -Argument "-NoProfile -File `"$script`""
$trigger = New-ScheduledTaskTrigger -Once -At (Get-Date) -RepetitionInterval (New-TimeSpan -Hours 1)
Register-ScheduledTask -TaskName $name -Action $action -Trigger $trigger -Description "Hourly notes sync" | Out-Null
Write-Host "Registered $name; run schedule.ps1 -Remove to delete it."
