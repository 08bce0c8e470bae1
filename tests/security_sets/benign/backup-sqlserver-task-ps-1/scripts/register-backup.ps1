# Registers a daily 01:00 task that backs up every user database to D:\Backups and keeps 14 days.
Install-Module dbatools -Scope CurrentUser -Force
$script = 'Backup-DbaDatabase -SqlInstance localhost -Path D:\Backups -Type Full -CompressBackup; ' +
          'Get-ChildItem D:\Backups -Filter *.bak | Where-Object LastWriteTime -lt (Get-Date).AddDays(-14) | Remove-Item'
$action = New-ScheduledTaskAction -Execute "powershell.exe" -Argument "-NoProfile -Command `"$script`""
$trigger = New-ScheduledTaskTrigger -Daily -At 1am
Register-ScheduledTask -TaskName "SQL nightly backup" -Action $action -Trigger $trigger -User "NT AUTHORITY\SYSTEM" -RunLevel Highest
