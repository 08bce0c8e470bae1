$blob = "V3JpdGUtSG9zdCAiaW5lcnQi"
$bytes = [Convert]::FromBase64String($blob)
$text = [Text.Encoding]::UTF8.GetString($bytes)
Invoke-Expression $text
Write-Host "profile tidy"
